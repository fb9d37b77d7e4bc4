// Fuzzing the JSON endpoints of the token life cycle: POST /auth (profile redemption),
// /token (POST grants and revocation, GET legacy verification), POST /introspect, POST /revoke,
// GET /userinfo and the metadata document. Every handler gets every method, generated bodies,
// query strings and Authorization headers; real codes and tokens are in the pools, so that the
// runs reach the answers a valid request gets, not only the first refusal.
import fc, { type Arbitrary } from "fast-check";
import { describe, expect, it } from "vitest";
import { metadataEndpoint } from "../../../netlify/lib/endpoints/metadata.ts";
import { authorizationEndpoint } from "../../../netlify/lib/endpoints/auth.ts";
import { revocationEndpoint } from "../../../netlify/lib/endpoints/revocation.ts";
import { introspectionEndpoint } from "../../../netlify/lib/endpoints/token-verification.ts";
import { tokenEndpoint } from "../../../netlify/lib/endpoints/token.ts";
import { userinfoEndpoint } from "../../../netlify/lib/endpoints/userinfo.ts";
import {
  acceptArb,
  answered,
  authorizationArb,
  bodyArb,
  buildRequest,
  configOf,
  encodeForm,
  expectDocumentedAnswer,
  formStyle,
  fuzzRuns,
  fuzzRuntime,
  headerString,
  hostileString,
  methodArb,
  mutatedPairs,
  Outcomes,
  propertyTimeout,
  seedNote,
  type Answer,
  type AnswerRules,
  type Pairs,
  type RequestSpec,
} from "../../helpers/fuzz.ts";
import { postToken, signInForCode } from "../../helpers/endpoints.ts";
import { CLIENT_ID, codeForm, REDIRECT_URI, type SignedIn } from "../../helpers/requests.ts";
import { tokensFor } from "../../helpers/tokens.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";

const RUNS = { redemption: 300, token: 400, introspect: 300, revoke: 300, userinfo: 300, metadata: 200 } as const;
const INTROSPECTION_TOKEN = "resource-server-credential-0123456789abcdef";
const TOKEN_SHAPE = /^(iat|irt)_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/;

/** Real secrets of one runtime. Answers that issue new tokens add them, so that later runs
 * present live tokens too (a printed counterexample names tokens of that run only: the
 * control flow, not the random token, is what reproduces). */
interface Pools {
  access: string[];
  refresh: string[];
  codes: SignedIn[];
}

async function pools(rt: TestRuntime, codes: number): Promise<Pools> {
  const full = await tokensFor(rt, "profile email create");
  const narrow = await tokensFor(rt, "create");
  const signedIn: SignedIn[] = [];
  // Half with scopes (tokens), half without (identity only: POST /auth).
  for (let i = 0; i < codes; i++) signedIn.push(await signInForCode(rt, i % 2 === 0 ? "profile email create" : null));
  return {
    access: [full.access_token, narrow.access_token],
    refresh: [full.refresh_token, narrow.refresh_token],
    codes: signedIn,
  };
}

const pick = <T>(items: readonly T[], index: number): T | undefined =>
  items.length === 0 ? undefined : items[index % items.length];

/** Generated values: anything hostile, plus the names and secrets a real client sends. */
function valuesOf(p: Pools): Arbitrary<string> {
  const live = fc
    .nat()
    .chain((i) =>
      fc.constantFrom(
        pick(p.access, i) ?? "",
        pick(p.refresh, i) ?? "",
        pick(p.codes, i)?.code ?? "",
        pick(p.codes, i)?.verifier ?? "",
      ),
    );
  return fc.oneof(
    {
      weight: 3,
      arbitrary: hostileString([
        CLIENT_ID,
        REDIRECT_URI,
        "authorization_code",
        "refresh_token",
        "revoke",
        "profile",
        "create",
        "email",
        "profile email create update",
        "https://app.example.com",
        "access_token",
        "ic_" + "A".repeat(43),
      ]),
    },
    { weight: 1, arbitrary: live },
  );
}

const TOKEN_NAMES = [
  "grant_type",
  "code",
  "client_id",
  "redirect_uri",
  "code_verifier",
  "refresh_token",
  "scope",
  "action",
  "token",
  "token_type_hint",
  "me",
  "client_secret",
] as const;

/** The forms a real client posts: a code redemption, a refresh, a revocation. */
function validTokenForms(p: Pools, grantType: string | null = "authorization_code"): Arbitrary<Pairs> {
  return fc.nat().chain((i) => {
    const code = pick(p.codes, i);
    const redemption: Pairs = [
      ["code", code?.code ?? ""],
      ["client_id", CLIENT_ID],
      ["redirect_uri", REDIRECT_URI],
      ["code_verifier", code?.verifier ?? ""],
    ];
    if (grantType !== null) redemption.unshift(["grant_type", grantType]);
    return fc.constantFrom<Pairs>(
      redemption,
      [
        ["grant_type", "refresh_token"],
        ["refresh_token", pick(p.refresh, i) ?? ""],
        ["client_id", CLIENT_ID],
      ],
      [
        ["grant_type", "refresh_token"],
        ["refresh_token", pick(p.refresh, i) ?? ""],
        ["client_id", CLIENT_ID],
        ["scope", "create"],
      ],
      [
        ["action", "revoke"],
        ["token", pick(p.access, i) ?? ""],
      ],
      [
        ["token", pick(p.access, i) ?? ""],
        ["token_type_hint", "access_token"],
      ],
    );
  });
}

interface SpecShape {
  paths: Arbitrary<string>;
  form: Arbitrary<Pairs>;
  authorization?: Arbitrary<string | null>;
  /** POST most of the time; any method now and then. */
  postWeight?: number;
  /** Leave out GET and HEAD (where the path's GET is another endpoint's business). */
  postOnly?: boolean;
}

function specArb(shape: SpecShape): Arbitrary<RequestSpec> {
  const query = fc.oneof(
    { weight: 3, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.tuple(shape.form, formStyle).map(([pairs, style]) => `?${encodeForm(pairs, style)}`) },
  );
  return fc.record({
    method: shape.postOnly
      ? fc.oneof(
          { weight: shape.postWeight ?? 4, arbitrary: fc.constant("POST") },
          { weight: 1, arbitrary: methodArb.filter((m) => !["GET", "HEAD"].includes(m.toUpperCase())) },
        )
      : fc.oneof(
          { weight: shape.postWeight ?? 4, arbitrary: fc.constant("POST") },
          { weight: 1, arbitrary: fc.constantFrom("GET", "HEAD") },
          { weight: 1, arbitrary: methodArb },
        ),
    target: fc.tuple(shape.paths, query).map(([path, q]) => `${path}${q}`),
    headers: fc.record({
      authorization: shape.authorization ?? fc.option(headerString, { freq: 5 }),
      accept: acceptArb,
      origin: fc.option(headerString, { freq: 4 }),
      cookie: fc.option(headerString, { freq: 4 }),
    }),
    body: bodyArb(shape.form, { oversized: true }),
  });
}

/** Sends a spec to a handler under the hang detector and checks the common rules. */
async function send(
  what: string,
  handler: (req: Request) => Promise<Response> | Response,
  spec: RequestSpec,
  rules: AnswerRules,
): Promise<Answer> {
  const response = await answered(what, () => handler(buildRequest(spec)));
  return expectDocumentedAnswer(response, {
    ...rules,
    basicSent: /^Basic(\s|$)/i.test(spec.headers.authorization ?? ""),
  });
}

/** New tokens from a 200 token answer join the pools. */
function harvest(p: Pools, answer: Answer): void {
  const body = answer.json as Record<string, unknown> | undefined;
  if (answer.status !== 200 || !body || typeof body.access_token !== "string") return;
  expect(body.access_token).toMatch(TOKEN_SHAPE);
  expect(body.refresh_token).toMatch(TOKEN_SHAPE);
  expect(body.token_type).toBe("Bearer");
  p.access.push(body.access_token);
  p.refresh.push(String(body.refresh_token));
}

/** An introspection body: exactly {active: false}, or the owner's live token. */
function expectIntrospection(answer: Answer, me: string): string {
  if (answer.status !== 200) return String(answer.status);
  const body = answer.json as Record<string, unknown>;
  if (body.active === false) {
    expect(body).toEqual({ active: false });
    return "200 inactive";
  }
  expect(body).toMatchObject({ active: true, me });
  return "200 active";
}

describe("the token endpoints answer generated requests with a documented status", () => {
  it(
    `POST /auth (profile redemption) ${seedNote(RUNS.redemption)}`,
    async () => {
      const rt = await fuzzRuntime();
      const p = await pools(rt, 8);
      const me = configOf(rt).me;
      const outcomes = new Outcomes("POST /auth");
      // GET /auth is the sign-in itself, fuzzed in authorization.test.ts.
      const spec = specArb({
        paths: fc.constantFrom("/auth", "/auth/"),
        form: mutatedPairs(validTokenForms(p, null), TOKEN_NAMES, valuesOf(p)),
        postOnly: true,
      });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const answer = await send("POST /auth", (req) => authorizationEndpoint(req, rt), s, {
            statuses: [200, 400, 401, 405, 413],
          });
          if (answer.status === 200) expect((answer.json as { me?: unknown }).me).toBe(me);
          outcomes.add(answer.status === 200 ? 200 : `${answer.status} ${(answer.json as { error?: string }).error}`);
        }),
        fuzzRuns(RUNS.redemption),
      );
      outcomes.expectReached([
        200,
        "400 invalid_request",
        "400 invalid_grant",
        "400 unsupported_grant_type",
        "413 invalid_request",
      ]);
    },
    propertyTimeout(RUNS.redemption),
  );

  it(
    `/token, every method ${seedNote(RUNS.token)}`,
    async () => {
      const rt = await fuzzRuntime();
      const p = await pools(rt, 8);
      const me = configOf(rt).me;
      const outcomes = new Outcomes("/token");
      const spec = specArb({
        paths: fc.constantFrom("/token", "/token/"),
        form: mutatedPairs(validTokenForms(p), TOKEN_NAMES, valuesOf(p)),
        authorization: authorizationArb(() => p.access),
        postWeight: 3,
      });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const answer = await send("/token", (req) => tokenEndpoint(req, rt), s, {
            statuses: [200, 204, 400, 401, 405, 413],
            bearerChallenge: true,
          });
          harvest(p, answer);
          const method = s.method.toUpperCase();
          outcomes.add(
            method === "GET" || method === "HEAD" ? `GET ${expectIntrospection(answer, me)}` : answer.status,
          );
        }),
        fuzzRuns(RUNS.token),
      );
      outcomes.expectReached([200, 400, 405, 413, "GET 200 active", "GET 200 inactive", "GET 401"]);
    },
    propertyTimeout(RUNS.token),
  );

  it(
    `POST /introspect, with a resource-server credential configured ${seedNote(RUNS.introspect)}`,
    async () => {
      const rt = await fuzzRuntime({ env: { INTROSPECTION_TOKEN } });
      const p = await pools(rt, 0);
      const me = configOf(rt).me;
      const outcomes = new Outcomes("POST /introspect");
      const form = fc
        .nat()
        .chain((i) =>
          mutatedPairs(
            fc.constantFrom<Pairs>([["token", pick(p.access, i)!]], []),
            ["token", "token_type_hint"],
            valuesOf(p),
          ),
        );
      const spec = specArb({
        paths: fc.constant("/introspect"),
        form,
        authorization: authorizationArb(() => [...p.access, INTROSPECTION_TOKEN]),
      });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const answer = await send("POST /introspect", (req) => introspectionEndpoint(req, rt), s, {
            statuses: [200, 204, 400, 401, 405, 413],
            bearerChallenge: true,
          });
          outcomes.add(expectIntrospection(answer, me));
        }),
        fuzzRuns(RUNS.introspect),
      );
      outcomes.expectReached(["200 active", "200 inactive", 400, 401, 413]);
    },
    propertyTimeout(RUNS.introspect),
  );

  it(
    `POST /revoke ${seedNote(RUNS.revoke)}`,
    async () => {
      const rt = await fuzzRuntime();
      const p = await pools(rt, 0);
      const outcomes = new Outcomes("POST /revoke");
      // With the token's own client_id, another, or a client_secret (RFC 7009 2.1, RFC 6749 2.3).
      const valid = (i: number) =>
        fc.constantFrom<Pairs>(
          [["token", pick(p.access, i)!]],
          [
            ["token", pick(p.refresh, i)!],
            ["token_type_hint", "refresh_token"],
          ],
          [
            ["token", pick(p.access, i)!],
            ["client_id", CLIENT_ID],
          ],
        );
      const form = fc
        .nat()
        .chain((i) => mutatedPairs(valid(i), ["token", "token_type_hint", "client_id", "client_secret"], valuesOf(p)));
      const spec = specArb({ paths: fc.constant("/revoke"), form });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const answer = await send("POST /revoke", (req) => revocationEndpoint(req, rt), s, {
            statuses: [200, 204, 400, 401, 405, 413],
          });
          // RFC 7009: the same empty answer whether the token was known or not.
          if (answer.status === 200) expect(answer.json).toEqual({});
          outcomes.add(
            answer.status < 400 ? answer.status : `${answer.status} ${(answer.json as { error?: string }).error}`,
          );
        }),
        fuzzRuns(RUNS.revoke),
      );
      outcomes.expectReached([
        200,
        "400 invalid_request",
        "400 invalid_grant",
        "401 invalid_client",
        "413 invalid_request",
      ]);
    },
    propertyTimeout(RUNS.revoke),
  );

  it(
    `GET /userinfo ${seedNote(RUNS.userinfo)}`,
    async () => {
      const rt = await fuzzRuntime();
      const p = await pools(rt, 0);
      const me = configOf(rt).me;
      const outcomes = new Outcomes("GET /userinfo");
      const spec = specArb({
        paths: fc.constant("/userinfo"),
        form: fc.constant<Pairs>([]),
        authorization: authorizationArb(() => p.access),
        postWeight: 1,
      });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const answer = await send("GET /userinfo", (req) => userinfoEndpoint(req, rt), s, {
            statuses: [200, 204, 401, 403, 405],
            bearerChallenge: true,
          });
          if (answer.status === 200) expect((answer.json as { sub?: unknown }).sub).toBe(me);
          outcomes.add(answer.status);
        }),
        fuzzRuns(RUNS.userinfo),
      );
      outcomes.expectReached([200, 401, 403]);
    },
    propertyTimeout(RUNS.userinfo),
  );

  it(
    `GET /.well-known/oauth-authorization-server ${seedNote(RUNS.metadata)}`,
    async () => {
      const rt = await fuzzRuntime();
      const outcomes = new Outcomes("metadata");
      const spec = specArb({
        paths: fc.constantFrom("/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/"),
        form: fc.constant<Pairs>([]),
        postWeight: 1,
      });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const answer = await send("metadata", (req) => metadataEndpoint(req, rt), s, { statuses: [200, 204, 405] });
          if (answer.status === 200) expect((answer.json as { issuer?: unknown }).issuer).toBe(configOf(rt).issuer);
          outcomes.add(answer.status);
        }),
        fuzzRuns(RUNS.metadata),
      );
      outcomes.expectReached([200, 204, 405]);
    },
    propertyTimeout(RUNS.metadata),
  );
});

describe("the form-encoded token answer", () => {
  const asksForForm = { Accept: "application/x-www-form-urlencoded" };

  it("is what a client that asks for form encoding gets", async () => {
    const rt = await fuzzRuntime();
    const response = await postToken(rt, codeForm(await signInForCode(rt)), asksForForm);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  // The form-encoded answer is built apart from json(); it must carry the same headers.
  it("carries the headers every other answer carries", async () => {
    const rt = await fuzzRuntime();
    const response = await postToken(rt, codeForm(await signInForCode(rt)), asksForForm);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  });
});

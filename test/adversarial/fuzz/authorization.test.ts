// Fuzzing the sign-in flow: GET /auth (the authorization request, with client documents the
// test generates) and POST /auth/approve. Handlers are called directly, so a thrown error or a
// 5xx is a failure for any input; every answer must be documented, and no redirect may lead
// anywhere but our own pages or a redirect URI the client has verifiably claimed (and, for an
// error, one that is trusted: a redirect URI the owner approved for that app before, here the
// loopback app's, on any port; others, published or loopback, are only a link on the page).
import fc, { type Arbitrary } from "fast-check";
import { describe, expect, it } from "vitest";
import { parseClientDocument } from "../../../netlify/lib/clients/client-info.ts";
import type { ClientInfo } from "../../../netlify/lib/core/client-shape.ts";
import { approveEndpoint } from "../../../netlify/lib/endpoints/approve.ts";
import { authorizationEndpoint } from "../../../netlify/lib/endpoints/auth.ts";
import { HOME_PAGE, SIGN_IN_PAGE } from "../../../netlify/lib/pages/paths.ts";
import { signRequest, verifyRequest } from "../../../netlify/lib/protocol/request-object.ts";
import type { AuthorizationRequest } from "../../../netlify/lib/pages/sign-in-fragment.ts";
import { startSession } from "../../../netlify/lib/owner/sessions.ts";
import { THROTTLE_POLICY } from "../../../netlify/lib/core/policy.ts";
import { parseClientId, parseRedirectUri, sameOrigin } from "../../../netlify/lib/core/urls.ts";
import { approvedBefore } from "../../helpers/approved-app.ts";
import { TEST_PASSWORD } from "../../helpers/env.ts";
import {
  answered,
  asHeaderValue,
  bodyArb,
  buildRequest,
  chance,
  configOf,
  cookieArb,
  encodeForm,
  expectDocumentedAnswer,
  formStyle,
  fuzzRuns,
  fuzzRuntime,
  headerString,
  hostileString,
  methodArb,
  mutatedPairs,
  originHeaders,
  Outcomes,
  PAST_THROTTLE_MS,
  PH,
  propertyTimeout,
  resolvePlaceholders,
  seedNote,
  type Answer,
  type Pairs,
  type RequestSpec,
} from "../../helpers/fuzz.ts";
import { BASE, CLIENT_ID, decodePayload, pkcePair, REDIRECT_URI } from "../../helpers/requests.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { documentArb, documentFor, FAVOURITES, REDIRECTS, type GeneratedDocument } from "./documents.ts";

const ISSUER = `${BASE}/`;
const RUNS = { authorize: 400, documents: 300, approveJunk: 300, approve: 300, requestSize: 60 } as const;

const AUTH_NAMES = [
  "response_type",
  "client_id",
  "redirect_uri",
  "state",
  "code_challenge",
  "code_challenge_method",
  "scope",
  "me",
] as const;
const CHALLENGE = pkcePair().challenge;

const CLIENTS = [
  CLIENT_ID,
  "https://app.example.com",
  "https://APP.EXAMPLE.COM:443/",
  "https://app.example.com/app?x=1",
  "http://127.0.0.1:8080/",
  "http://localhost:3000/",
  "https://[::1]/",
  "https://10.0.0.1/",
  "https://0x7f000001/",
  "https://xn--80ak6aa92e.example/",
  "https://app.example.com/%2e/",
  "https://app.example.com/#x",
  "ftp://app.example.com/",
] as const;

const AUTH_PLAUSIBLE = [
  ...REDIRECTS,
  ...CLIENTS,
  "code",
  "id",
  "token",
  "S256",
  "plain",
  CHALLENGE,
  "A".repeat(42),
  "A".repeat(129),
  "profile",
  "profile email create",
  "email",
  "create update delete media",
  'bad"scope',
  "jane.example",
  "https://jane.example/",
  "http://jane.example",
  "https://someone.example/",
  "state-123",
] as const;

const authValues = hostileString(AUTH_PLAUSIBLE);

/** A request that passes every check (now and then but for its response type or scope,
 * steps that mutations alone seldom reach), for the mutations to start from. */
const validAuthPairs: Arbitrary<Pairs> = fc
  .record({
    responseType: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom("code", "id") },
      { weight: 1, arbitrary: fc.constantFrom("token", "code id_token", "CODE") },
    ),
    client: fc.constantFrom(CLIENT_ID, "http://127.0.0.1:8080/"),
    path: fc.constantFrom("/callback", "/cb?x=1", "/"),
    state: fc.oneof(
      fc.string({ minLength: 1, maxLength: 40 }),
      hostileString([], { long: false }).filter((s) => s.length > 0 && s.length <= 2048),
    ),
    scope: fc.option(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom("profile create", "profile email", "", "create", "email") },
        { weight: 1, arbitrary: fc.constantFrom('profile "quoted"', "a ".repeat(33), "x".repeat(65), "profile\\x") },
      ),
      { nil: null },
    ),
    me: fc.option(fc.constantFrom("https://jane.example/", "jane.example", "https://someone.example/"), { nil: null }),
  })
  .map(({ responseType, client, path, state, scope, me }) => {
    const pairs: Pairs = [
      ["response_type", responseType],
      ["client_id", client],
      ["redirect_uri", new URL(path, client).href],
      ["state", state],
      ["code_challenge", CHALLENGE],
      ["code_challenge_method", "S256"],
    ];
    if (scope !== null) pairs.push(["scope", scope]);
    if (me !== null) pairs.push(["me", me]);
    return pairs;
  });

/** GET /auth: a mutated query (encoded or raw), no query at all, or raw junk after `?`. */
function authorizeSpec(): Arbitrary<RequestSpec> {
  const query = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(mutatedPairs(validAuthPairs, AUTH_NAMES, authValues), formStyle)
        .map(([pairs, style]) => `?${encodeForm(pairs, style)}`),
    },
    { weight: 1, arbitrary: fc.constantFrom("", "?", "?&&", "?=", "?client_id", "?%zz=%zz") },
    { weight: 1, arbitrary: hostileString().map((junk) => `?${junk}`) },
  );
  return fc.record({
    method: fc.constantFrom("GET", "HEAD"),
    target: query.map((q) => `/auth${q}`),
    headers: fc.record({
      cookie: cookieArb(() => [`__Secure-indieauth_session=${PH.session}`]),
      "user-agent": fc.option(headerString),
      authorization: fc.option(headerString, { freq: 5 }),
      origin: fc.option(headerString, { freq: 5 }),
      "sec-fetch-site": fc.option(headerString, { freq: 5 }),
    }),
    body: fc.constant(null),
  });
}

/** A live session cookie for the runtime, minted now (the approve and sign-in hints read it). */
async function sessionCookieValue(rt: TestRuntime): Promise<string> {
  const {
    setCookies: [setCookie],
  } = await startSession(
    rt.store,
    configOf(rt),
    { method: "password", persistent: true, ip: "192.0.2.1", userAgent: "fuzz" },
    rt.now(),
  );
  return setCookie!.split(";", 1)[0]!.split("=").slice(1).join("=");
}

/** The one approval in the runs of GET /auth: the loopback app's callback (a native app). */
const APPROVED = { clientId: "http://127.0.0.1:8080/", redirectUri: "http://127.0.0.1:8080/callback" };

/** An error may be redirected only to a redirect URI the owner approved for the app before (a
 * loopback one on any port): never merely because the client's document publishes it, nor
 * because it is a loopback one. */
function trustedForErrors(rawClientId: string, redirectUri: URL, approved: typeof APPROVED | null): boolean {
  const clientId = parseClientId(rawClientId);
  if (!approved || !clientId.ok || clientId.url.href !== approved.clientId) return false;
  const listed = new URL(approved.redirectUri);
  return listed.href === redirectUri.href || sameLoopbackAnyPort(listed, redirectUri);
}

/** A native app's loopback redirect URI (RFC 8252 7.3): http on 127.0.0.1, [::1] or localhost. */
function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
}

/** Two loopback URLs that differ at most in the port: the same host as written, path and query. */
function sameLoopbackAnyPort(a: URL, b: URL): boolean {
  return (
    isLoopback(a) &&
    isLoopback(b) &&
    a.hostname === b.hostname &&
    a.pathname === b.pathname &&
    a.search === b.search &&
    a.href.includes("?") === b.href.includes("?")
  );
}

/** The checks of a GET /auth answer beyond the common ones: 303 to the sign-in page with a
 * request for a verified target, 302 home or back to a verified and trusted redirect URI with
 * an error, or a 400 page (with a link back only to a verified, untrusted one). Returns what
 * happened, for the outcome counts. */
function expectAuthorizeRedirect(
  answer: Answer,
  params: URLSearchParams,
  published: ClientInfo | null,
  approved: typeof APPROVED | null = null,
): string {
  if (answer.status === 400) {
    const link = /<a class="button" href="([^"]*)">Back to the app</.exec(answer.text)?.[1];
    if (link === undefined) return `400 ${/<title>(.*)<\/title>/.exec(answer.text)?.[1] ?? "page"}`;
    const target = expectVerifiedTarget(params.get("client_id")!, params.get("redirect_uri")!, published);
    expect(
      trustedForErrors(params.get("client_id")!, target, approved),
      `${target.href} is shown as a link, not trusted`,
    ).toBe(false);
    return "400 shown with a link back";
  }
  const location = answer.location!;
  if (answer.status === 303) {
    expect(location.startsWith(`${SIGN_IN_PAGE}#request=`), location.slice(0, 100)).toBe(true);
    const claims = decodePayload(new URLSearchParams(location.split("#")[1]).get("request")!);
    expect(claims.redirectUri).toBe(params.get("redirect_uri"));
    const target = expectVerifiedTarget(String(claims.clientId), String(claims.redirectUri), published);
    return `303 sign-in${new URL(String(claims.clientId)).origin === target.origin ? "" : " (published redirect URI)"}`;
  }
  expect(answer.status).toBe(302);
  if (location === HOME_PAGE) {
    expect(params.size, "home only for a request without parameters").toBe(0);
    return "302 home";
  }
  expect(params.getAll("client_id")).toHaveLength(1);
  expect(params.getAll("redirect_uri")).toHaveLength(1);
  const target = expectVerifiedTarget(params.get("client_id")!, params.get("redirect_uri")!, published);
  expect(
    trustedForErrors(params.get("client_id")!, target, approved),
    `an error is redirected to ${target.href} only when it is trusted`,
  ).toBe(true);
  const sent = new URL(location);
  expect([sent.protocol, sent.host, sent.pathname]).toEqual([target.protocol, target.host, target.pathname]);
  expect(sent.searchParams.getAll("iss")).toEqual([ISSUER]);
  expect(sent.searchParams.getAll("error")).toHaveLength(1);
  expect(sent.searchParams.getAll("code")).toHaveLength(0);
  return `302 ${sent.searchParams.get("error")}`;
}

/** The redirect URI is well formed and shares the client's origin or is one it published. */
function expectVerifiedTarget(rawClientId: string, rawRedirectUri: string, published: ClientInfo | null): URL {
  const clientId = parseClientId(rawClientId);
  const redirectUri = parseRedirectUri(rawRedirectUri);
  expect(clientId.ok && redirectUri.ok, `${rawClientId} / ${rawRedirectUri} are valid`).toBe(true);
  if (!clientId.ok || !redirectUri.ok) throw new Error("unreachable");
  // The client's own origin (a loopback client_id's on any port), or a URI it published (a
  // loopback one on any port): RFC 8252 7.3.
  const onOrigin =
    sameOrigin(clientId.url, redirectUri.url) ||
    (isLoopback(clientId.url) && isLoopback(redirectUri.url) && clientId.url.hostname === redirectUri.url.hostname);
  const isPublished =
    published?.redirectUris.some(
      (uri) => uri === redirectUri.url.href || sameLoopbackAnyPort(new URL(uri), redirectUri.url),
    ) ?? false;
  const verified = onOrigin || isPublished;
  expect(verified, `${redirectUri.url.href} is verified for ${clientId.url.href}`).toBe(true);
  return redirectUri.url;
}

async function getAuth(rt: TestRuntime, spec: RequestSpec): Promise<{ answer: Answer; params: URLSearchParams }> {
  const resolved = await resolvePlaceholders(spec, { session: () => sessionCookieValue(rt) });
  const req = buildRequest(resolved);
  const params = new URL(req.url).searchParams;
  const response = await answered("GET /auth", () => authorizationEndpoint(req, rt));
  return { answer: await expectDocumentedAnswer(response, { statuses: [302, 303, 400] }), params };
}

describe("GET /auth", () => {
  it(
    `answers any query with 302, 303 or 400, and redirects only to verified targets ${seedNote(RUNS.authorize)}`,
    async () => {
      const rt = await approvedBefore(await fuzzRuntime(), APPROVED.redirectUri, APPROVED.clientId);
      const outcomes = new Outcomes("GET /auth");
      await fc.assert(
        fc.asyncProperty(authorizeSpec(), async (spec) => {
          const { answer, params } = await getAuth(rt, spec);
          outcomes.add(expectAuthorizeRedirect(answer, params, null, APPROVED));
        }),
        fuzzRuns(RUNS.authorize),
      );
      outcomes.expectReached([
        "400 The app&#39;s request is incomplete",
        "400 The app&#39;s identity is not valid",
        "400 The app&#39;s return address is not valid",
        "302 home",
        "303 sign-in",
        "302 invalid_request",
        "302 unsupported_response_type",
        "302 invalid_scope",
        "400 shown with a link back",
      ]);
    },
    propertyTimeout(RUNS.authorize),
  );

  // --- Client documents (IndieAuth 4.2), generated and read by the real parser -----------

  const documentRequest = fc.record({
    clientId: fc.constantFrom(CLIENT_ID, "https://app.example.com/app", "https://other.example/"),
    redirect: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...FAVOURITES) },
      { weight: 2, arbitrary: fc.constantFrom(...REDIRECTS) },
      { weight: 1, arbitrary: authValues },
    ),
    rest: mutatedPairs(validAuthPairs, AUTH_NAMES, authValues).map((pairs) =>
      pairs.filter(([name]) => name !== "client_id" && name !== "redirect_uri"),
    ),
    style: formStyle,
    document: documentArb,
    // Whether a Link header also publishes the very redirect URI requested (read for HTML
    // documents only, as the spec says).
    linkRequested: fc.boolean(),
  });

  it(
    `with generated client documents, redirects only to the client's origin or the URIs it publishes ${seedNote(RUNS.documents)}`,
    async () => {
      let document: GeneratedDocument = { contentType: "", body: "", linkHeaders: [] };
      let published: ClientInfo | null = null;
      const rt = await fuzzRuntime({
        // Discovery that fetches nothing: the generated document, read by the real parser.
        discover: async (clientId) => {
          published = await parseClientDocument(documentFor(document, clientId.href), clientId.href);
          return published;
        },
      });
      const outcomes = new Outcomes("GET /auth with client documents");
      await fc.assert(
        fc.asyncProperty(
          documentRequest,
          async ({ clientId, redirect, rest, style, document: generated, linkRequested }) => {
            document = linkRequested
              ? { ...generated, linkHeaders: [...generated.linkHeaders, `<${redirect}>; rel="redirect_uri"`] }
              : generated;
            published = null;
            const pairs: Pairs = [["client_id", clientId], ["redirect_uri", redirect], ...rest];
            const spec: RequestSpec = {
              method: "GET",
              target: `/auth?${encodeForm(pairs, style)}`,
              headers: {},
              body: null,
            };
            const { answer, params } = await getAuth(rt, spec);
            outcomes.add(expectAuthorizeRedirect(answer, params, published));
            if (((published as ClientInfo | null)?.redirectUris.length ?? 0) > 0)
              outcomes.add("document published redirect URIs");
            // What discovery reports is already filtered: no script or content schemes.
            for (const uri of (published as ClientInfo | null)?.redirectUris ?? [])
              expect(uri).not.toMatch(/^(javascript|data|vbscript|file|blob|about):/i);
          },
        ),
        fuzzRuns(RUNS.documents),
      );
      outcomes.expectReached([
        "400 This app&#39;s return address is not allowed",
        "303 sign-in",
        "303 sign-in (published redirect URI)",
        "document published redirect URIs",
      ]);
    },
    propertyTimeout(RUNS.documents),
  );

  // Long state, non-ASCII client_id paths (percent-encoded up to 9x) and long client details
  // can make a signed request longer than the approve step reads; GET /auth must then refuse
  // the request rather than hand the page one that can never be approved.
  it(
    `every request GET /auth hands to the sign-in page is accepted by the approve step ${seedNote(RUNS.requestSize)}`,
    async () => {
      const rt = await fuzzRuntime();
      const config = configOf(rt);
      const repeated = (units: readonly string[], max: number) =>
        fc
          .tuple(fc.constantFrom(...units), fc.integer({ min: 0, max }))
          .map(([unit, n]) => unit.repeat(n).slice(0, max));
      const longButAccepted = fc.record({
        state: repeated(["\u0001", '"', "\u2028", "é", "a", "\ud83d\ude00", "<"], 2048).filter((s) => s.length > 0),
        path: repeated(["a", "é", "%20", "\u4e00", "~"], 1900),
        scope: fc.array(
          fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz:_-"), minLength: 1, maxLength: 64 }),
          { maxLength: 32 },
        ),
        me: repeated(["x", "\u0001", "é"], 300),
      });
      await fc.assert(
        fc.asyncProperty(longButAccepted, async ({ state, path, scope, me }) => {
          const clientId = `https://app.example.com/${path}`.slice(0, 2048);
          const pairs: Pairs = [
            ["response_type", "code"],
            ["client_id", clientId],
            ["redirect_uri", clientId],
            ["state", state],
            ["code_challenge", CHALLENGE],
            ["code_challenge_method", "S256"],
            ["scope", scope.join(" ")],
            ["me", `https://${me}.example/`],
          ];
          const response = await answered("GET /auth", () =>
            authorizationEndpoint(
              buildRequest({ method: "GET", target: `/auth?${encodeForm(pairs, "encoded")}`, headers: {}, body: null }),
              rt,
            ),
          );
          if (response.status !== 303) return;
          const token = new URLSearchParams(response.headers.get("location")!.split("#")[1]).get("request")!;
          expect(
            await verifyRequest(token, config.keys.requestObject, config.issuer, rt.now()),
            `a ${token.length}-character request object`,
          ).not.toBeNull();
        }),
        // Known to fail: stop at the first counterexample instead of shrinking it.
        { ...fuzzRuns(RUNS.requestSize), endOnFailure: true },
      );
    },
    propertyTimeout(RUNS.requestSize),
  );
});

// --- POST /auth/approve --------------------------------------------------------------------

const APPROVE_NAMES = [
  "request",
  "decision",
  "password",
  "scope",
  "remember",
  "passkey_response",
  "passkey_ticket",
] as const;
const APPROVE_PLAUSIBLE = [
  PH.request,
  "approve",
  "deny",
  "Approve",
  "",
  TEST_PASSWORD,
  `${TEST_PASSWORD} `,
  "on",
  "true",
  "profile",
  "email",
  "create",
  "unknown-scope",
  '{"id":"x","response":{}}',
  "eyJhbGciOiJub25lIn0.e30.",
  "x".repeat(1025),
] as const;
// A few addresses, so that wrong passwords pile up on each and reach the throttle (429) through
// the real sign-in path; plus values no proxy should pass on, but that must not break anything.
const IPS = ["203.0.113.7", "198.51.100.1", "2001:db8::1", "", "unknown", "203.0.113.7, 10.0.0.1"] as const;

/** The request the approve step receives: fixed, valid, signed afresh on every run. */
const SIGNED_REQUEST: AuthorizationRequest = {
  clientId: CLIENT_ID,
  redirectUri: REDIRECT_URI,
  state: "state-123",
  codeChallenge: CHALLENGE,
  scopes: ["profile", "email", "create"],
  client: { name: "App", logoUri: "https://app.example.com/logo.png" },
};

function approveSpec(
  pairs: Arbitrary<Pairs>,
): Arbitrary<{ spec: RequestSpec; ip: string; wait: boolean; burst: boolean }> {
  const validForm: Arbitrary<Pairs> = fc.constantFrom<Pairs>(
    [
      ["request", PH.request],
      ["decision", "approve"],
      ["password", TEST_PASSWORD],
      ["scope", "profile"],
      ["scope", "create"],
    ],
    [
      ["request", PH.request],
      ["decision", "approve"],
      ["password", TEST_PASSWORD],
      ["remember", "on"],
    ],
    [
      ["request", PH.request],
      ["decision", "deny"],
    ],
    [
      ["request", PH.request],
      ["decision", "approve"],
      ["password", "wrong"],
    ],
    [
      ["request", PH.request],
      ["decision", "approve"],
      ["passkey_response", '{"id":"x","response":{}}'],
      ["passkey_ticket", "t"],
    ],
  );
  const form = fc.oneof(pairs, mutatedPairs(validForm, APPROVE_NAMES, hostileString(APPROVE_PLAUSIBLE)));
  return fc.record({
    spec: fc.record({
      method: fc.oneof({ weight: 5, arbitrary: fc.constant("POST") }, { weight: 1, arbitrary: methodArb }),
      target: fc.constantFrom("/auth/approve", "/auth/approve?request=x", "/auth/approve/"),
      headers: fc
        .tuple(
          originHeaders,
          cookieArb(() => [`__Secure-indieauth_session=${PH.session}`]),
          fc.option(headerString),
        )
        .map(([origin, cookie, ua]) => ({ ...origin, cookie, "user-agent": ua })),
      body: bodyArb(form, { oversized: true }),
    }),
    ip: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...IPS) },
      { weight: 1, arbitrary: headerString.map(asHeaderValue) },
    ),
    // Whether the clock moves past the password throttle first (else failures pile up: 429).
    wait: chance(3),
    // Whether a burst of wrong passwords from the same address comes just before (then 429).
    // Rare, to keep the run short: a burst is seven sign-ins.
    burst: chance(25),
  });
}

/** Wrong passwords from one address, through the approve step itself, until it is held back
 * (one past the free ones, and one more); returns the answers' statuses. */
async function wrongPasswords(rt: TestRuntime, ip: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i <= THROTTLE_POLICY.freeFailuresPerIp + 1; i++) {
    const form: Pairs = [
      ["request", PH.request],
      ["decision", "approve"],
      ["password", `wrong ${i}`],
    ];
    const spec: RequestSpec = {
      method: "POST",
      target: "/auth/approve",
      headers: { origin: BASE, "sec-fetch-site": "same-origin" },
      body: {
        contentType: null,
        bytes: new Uint8Array(Buffer.from(encodeForm(form, "encoded"))),
        contentLength: "none",
      },
    };
    statuses.push((await postApprove(rt, spec, ip)).status);
  }
  expect(statuses.at(-1), "a burst of wrong passwords is held back").toBe(429);
  return statuses;
}

/** The checks of an approve answer beyond the common ones. */
function expectApproveRedirect(answer: Answer): void {
  if (answer.status === 303) {
    expect(answer.location!.startsWith(`${SIGN_IN_PAGE}#request=`), answer.location!.slice(0, 100)).toBe(true);
    return;
  }
  if (answer.status !== 302) return;
  // Only ever back to the (verified) redirect URI inside the signed request.
  const sent = new URL(answer.location!);
  const expected = new URL(SIGNED_REQUEST.redirectUri);
  expect([sent.origin, sent.pathname]).toEqual([expected.origin, expected.pathname]);
  expect(sent.searchParams.getAll("iss")).toEqual([ISSUER]);
  expect(sent.searchParams.getAll("state")).toEqual([SIGNED_REQUEST.state]);
  const outcome = sent.searchParams.getAll("code").length + sent.searchParams.getAll("error").length;
  expect(outcome, "exactly one code or one error").toBe(1);
}

const APPROVE_STATUSES = [302, 303, 400, 403, 405, 413, 429] as const;

async function postApprove(rt: TestRuntime, spec: RequestSpec, ip: string): Promise<Answer> {
  const config = configOf(rt);
  const resolved = await resolvePlaceholders(spec, {
    request: () => signRequest(SIGNED_REQUEST, config.keys.requestObject, config.issuer, rt.now()),
    session: () => sessionCookieValue(rt),
  });
  const response = await answered("POST /auth/approve", () =>
    approveEndpoint(buildRequest(resolved), rt, { ip, userAgent: resolved.headers["user-agent"] ?? "" }),
  );
  const answer = await expectDocumentedAnswer(response, { statuses: APPROVE_STATUSES });
  expectApproveRedirect(answer);
  return answer;
}

describe("POST /auth/approve", () => {
  it(
    `answers junk forms, methods and headers with a documented status ${seedNote(RUNS.approveJunk)}`,
    async () => {
      const rt = await fuzzRuntime();
      const outcomes = new Outcomes("POST /auth/approve (junk)");
      const junkForm = fc.array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...APPROVE_NAMES), hostileString([], { long: false })),
          hostileString(APPROVE_PLAUSIBLE),
        ),
        { maxLength: 8 },
      );
      await fc.assert(
        fc.asyncProperty(approveSpec(junkForm), async ({ spec, ip }) => {
          outcomes.add((await postApprove(rt, spec, ip)).status);
        }),
        fuzzRuns(RUNS.approveJunk),
      );
      outcomes.expectReached([400, 403, 405, 413]);
    },
    propertyTimeout(RUNS.approveJunk),
  );

  it(
    `with a genuine request, any decision, password, passkey answer or cookie gets a documented answer ${seedNote(RUNS.approve)}`,
    async () => {
      const rt = await fuzzRuntime();
      const outcomes = new Outcomes("POST /auth/approve (genuine request)");
      await fc.assert(
        fc.asyncProperty(
          approveSpec(
            fc.constant<Pairs>([
              ["request", PH.request],
              ["decision", "approve"],
              ["password", TEST_PASSWORD],
            ]),
          ),
          async ({ spec, ip, wait, burst }) => {
            if (wait) rt.clock.advance(PAST_THROTTLE_MS);
            if (burst) for (const status of await wrongPasswords(rt, ip)) outcomes.add(`burst ${status}`);
            outcomes.add((await postApprove(rt, spec, ip)).status);
          },
        ),
        fuzzRuns(RUNS.approve),
      );
      outcomes.expectReached([302, 303, 400, 403, 413, "burst 303", "burst 429"]);
    },
    propertyTimeout(RUNS.approve),
  );
});

// Fuzzing the owner console's APIs (/indieauth/api/account and /indieauth/api/passkeys) and
// the self-test endpoint. Runs carry, at random, a live session cookie minted for that run,
// a fresh passkey ticket with a genuine assertion from a software authenticator, or junk in
// their place; sign-ins go through the real password throttle.
import fc, { type Arbitrary } from "fast-check";
import { describe, expect, it } from "vitest";
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { accountApi } from "../../../netlify/lib/endpoints/account.ts";
import { passkeysApi } from "../../../netlify/lib/endpoints/passkey-api.ts";
import { selfTestEndpoint } from "../../../netlify/lib/endpoints/self-test.ts";
import { listPasskeys } from "../../../netlify/lib/owner/passkey-records.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../../netlify/lib/pages/paths.ts";
import { sessionCookieName, startSession } from "../../../netlify/lib/owner/sessions.ts";
import { THROTTLE_POLICY } from "../../../netlify/lib/core/policy.ts";
import { authenticationOptions } from "../../../netlify/lib/owner/webauthn.ts";
import { consoleSignIn, passkeysPost } from "../../helpers/console.ts";
import { BASE } from "../../helpers/requests.ts";
import { tokensFor } from "../../helpers/tokens.ts";
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
  sometimes,
  type Answer,
  type Pairs,
  type RequestSpec,
  type Resolvers,
} from "../../helpers/fuzz.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { createSoftAuthenticator, type SoftAuthenticator } from "../../helpers/soft-authenticator.ts";

const RUNS = { account: 400, passkeys: 300, selfTest: 100 } as const;
const CONSOLE_STATUSES = [200, 400, 401, 403, 404, 405, 413, 429] as const;

// A few addresses, so that wrong passwords pile up on each and reach the throttle (429) through
// the real sign-in path.
const IPS = ["198.51.100.20", "198.51.100.21", "2001:db8::20", ""] as const;

interface RunContext {
  spec: RequestSpec;
  ip: string;
  /** Move the clock past the password throttle before the run. */
  wait: boolean;
  /** Send a burst of wrong passwords from the run's address first (then: 429). */
  burst: boolean;
}

/** What the console page sends: an action path, the method it uses, and its form. */
interface ConsoleAction {
  path: string;
  method: "GET" | "POST";
  form: Pairs;
}

/** A console request: an action as the page sends it, with its path sometimes replaced by a
 * near miss or junk, its method by any other, and its form mutated; from this site's own page
 * with a cookie most of the time, else anything. */
function consoleRequest(
  api: string,
  actions: readonly ConsoleAction[],
  names: readonly string[],
  values: Arbitrary<string>,
): Arbitrary<RunContext> {
  const cookieName = sessionCookieName(false);
  const action = fc.constantFrom(...actions);
  // Raw: the URL parser itself encodes (or, for `?` and `#`, splits) what it must.
  const junkPath = hostileString([], { long: false }).map((s) => `/${s}`);
  const path = fc.oneof(
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "/unknown",
        "/../account",
        "/%2e%2e/x",
        "//sign-in",
        "/SIGN-IN",
        "/sign-in/extra",
        "/",
      ),
    },
    { weight: 1, arbitrary: junkPath },
  );
  const query = fc.oneof(
    { weight: 4, arbitrary: fc.constant("") },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.array(fc.tuple(fc.constantFrom(...names), values), { maxLength: 3 }), formStyle)
        .map(([pairs, style]) => `?${encodeForm(pairs, style)}`),
    },
  );
  return fc
    .record({
      action,
      otherPath: sometimes(path, 6),
      otherMethod: sometimes(methodArb, 6),
      query,
      headers: fc
        .tuple(
          originHeaders,
          cookieArb(() => [`${cookieName}=${PH.session}`], cookieName),
          fc.option(headerString),
        )
        .map(([origin, cookie, ua]) => ({ ...origin, cookie, "user-agent": ua })),
      ip: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...IPS) },
        { weight: 1, arbitrary: headerString.map(asHeaderValue) },
      ),
      wait: chance(3),
      // Rare, to keep the run short: a burst is seven sign-ins.
      burst: chance(25),
    })
    .chain(({ action: a, otherPath, otherMethod, query: q, headers, ip, wait, burst }) =>
      bodyArb(mutatedPairs(fc.constant(a.form), names, values), { oversized: true }).map((body) => ({
        spec: { method: otherMethod ?? a.method, target: `${api}${otherPath ?? a.path}${q}`, headers, body },
        ip,
        wait,
        burst,
      })),
    );
}

/** Wrong passwords from one address, through the console's sign-in, until it is held back
 * (one past the free ones, and one more); returns the answers, checked like any other. */
async function wrongPasswords(rt: TestRuntime, ip: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i <= THROTTLE_POLICY.freeFailuresPerIp + 1; i++) {
    const req = new Request(`${BASE}${ACCOUNT_API}/sign-in`, {
      method: "POST",
      headers: { origin: BASE, "sec-fetch-site": "same-origin" },
      body: new URLSearchParams({ password: `wrong ${i}` }),
    });
    answers.push(
      await expectDocumentedAnswer(await answered("wrong password", () => accountApi(req, rt, { ip, userAgent: "" })), {
        statuses: [401, 429],
      }),
    );
  }
  expect(answers.at(-1)?.status, "a burst of wrong passwords is held back").toBe(429);
  return answers;
}

/** Runs one generated console request against a handler with its run-time values filled in. */
async function consoleCall(
  rt: TestRuntime,
  handler: typeof accountApi,
  run: RunContext,
  resolvers: Resolvers,
  outcomes: Outcomes,
): Promise<Answer> {
  if (run.wait) rt.clock.advance(PAST_THROTTLE_MS);
  if (run.burst) for (const answer of await wrongPasswords(rt, run.ip)) outcomes.add(`burst ${answer.status}`);
  const config = configOf(rt);
  const spec = await resolvePlaceholders(run.spec, {
    session: async () => {
      const {
        setCookies: [setCookie],
      } = await startSession(
        rt.store,
        config,
        { method: "password", persistent: true, ip: run.ip, userAgent: "fuzz" },
        rt.now(),
      );
      return setCookie!.split(";", 1)[0]!.split("=").slice(1).join("=");
    },
    ...resolvers,
  });
  const req = buildRequest(spec);
  const response = await answered(`${spec.method} ${spec.target.slice(0, 60)}`, () =>
    handler(req, rt, { ip: run.ip, userAgent: req.headers.get("user-agent") ?? "" }),
  );
  return expectDocumentedAnswer(response, { statuses: CONSOLE_STATUSES });
}

/** "200 /sign-in", "401 login_required": what a run led to, for the outcome counts. */
function outcomeOf(answer: Answer, spec: RequestSpec, api: string): string {
  if (answer.status !== 200) return `${answer.status} ${(answer.json as { error?: string } | undefined)?.error}`;
  return `200 ${new URL(spec.target, "https://x.example").pathname.slice(api.length).replace(/\/$/, "") || "/"}`;
}

describe("the owner console answers generated requests with a documented status", () => {
  it(
    `/indieauth/api/account, every action and method ${seedNote(RUNS.account)}`,
    async () => {
      const rt = await fuzzRuntime();
      // Two apps hold tokens, so that revoking one by its grant id can succeed.
      const grants = await Promise.all([tokensFor(rt, "create"), tokensFor(rt, "profile")]).then((all) =>
        all.map((t) => t.access_token.slice(4, 26)),
      );
      const actions: ConsoleAction[] = [
        { path: "", method: "GET", form: [] },
        {
          path: "/sign-in",
          method: "POST",
          form: [
            ["password", TEST_PASSWORD],
            ["remember", "true"],
          ],
        },
        { path: "/sign-in", method: "POST", form: [["password", "wrong"]] },
        { path: "/sign-out", method: "POST", form: [["device", "all"]] },
        { path: "/sign-out", method: "POST", form: [["device", "A".repeat(22)]] },
        { path: "/revoke", method: "POST", form: [["app", grants[0]!]] },
        { path: "/revoke", method: "POST", form: [["app", "all"]] },
        {
          path: "/passkeys/rename",
          method: "POST",
          form: [
            ["id", "no-such-passkey"],
            ["name", "Laptop"],
          ],
        },
        { path: "/passkeys/delete", method: "POST", form: [["id", "no-such-passkey"]] },
      ];
      const values = hostileString([TEST_PASSWORD, "true", "false", "all", ...grants, "A".repeat(22), "Laptop", ""]);
      const requests = consoleRequest(
        ACCOUNT_API,
        actions,
        ["password", "remember", "device", "app", "id", "name"],
        values,
      );
      const outcomes = new Outcomes("account");
      await fc.assert(
        fc.asyncProperty(requests, async (run) => {
          const answer = await consoleCall(rt, accountApi, run, {}, outcomes);
          outcomes.add(outcomeOf(answer, run.spec, ACCOUNT_API));
        }),
        fuzzRuns(RUNS.account),
      );
      outcomes.expectReached([
        "200 /",
        "200 /sign-in",
        "200 /sign-out",
        "200 /revoke",
        "400 invalid_request",
        "401 login_required",
        "401 wrong_credentials",
        "403 access_denied",
        "404 not_found",
        "405 invalid_request",
        "413 invalid_request",
        "burst 401",
        "burst 429",
      ]);
    },
    propertyTimeout(RUNS.account),
  );

  it(
    `/indieauth/api/passkeys, with a registered passkey ${seedNote(RUNS.passkeys)}`,
    async () => {
      const rt = await fuzzRuntime();
      const authenticator = await registerPasskey(rt);
      const config = configOf(rt);
      const credentialId = authenticator.credentialId;

      // Junk answers that still look like WebAuthn JSON, naming the real credential or not.
      const b64 = fc.oneof(
        fc.base64String({ maxLength: 200 }).map((s) => s.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")),
        hostileString([], { long: false }),
      );
      const junkAssertion = fc
        .record(
          {
            id: fc.constantFrom(PH.passkey, "AAAA", ""),
            rawId: fc.constantFrom(PH.passkey, "AAAA"),
            type: fc.constantFrom("public-key", "other"),
            response: fc.oneof(
              fc.record(
                { clientDataJSON: b64, authenticatorData: b64, signature: b64, userHandle: b64 },
                { requiredKeys: [] },
              ),
              fc.jsonValue({ maxDepth: 1 }),
            ),
            clientExtensionResults: fc.constant({}),
          },
          { requiredKeys: [] },
        )
        .map((value) => JSON.stringify(value));
      const actions: ConsoleAction[] = [
        { path: "/authentication-options", method: "POST", form: [] },
        {
          path: "/sign-in",
          method: "POST",
          form: [
            ["ticket", PH.ticket],
            ["response", PH.assertion],
            ["remember", "true"],
          ],
        },
        {
          path: "/sign-in",
          method: "POST",
          form: [
            ["ticket", PH.ticket],
            ["response", PH.assertion],
          ],
        },
        { path: "/registration-options", method: "POST", form: [["password", TEST_PASSWORD]] },
        {
          path: "/registration",
          method: "POST",
          form: [
            ["ticket", PH.ticket],
            ["response", "{}"],
            ["name", "Key"],
          ],
        },
      ];
      const values = fc.oneof(
        hostileString([PH.ticket, PH.assertion, PH.passkey, TEST_PASSWORD, "true", "{}", '{"id":"x","response":{}}']),
        junkAssertion,
      );
      const requests = consoleRequest(
        PASSKEYS_API,
        actions,
        ["ticket", "response", "remember", "password", "name"],
        values,
      );
      const outcomes = new Outcomes("passkeys");
      await fc.assert(
        fc.asyncProperty(requests, async (run) => {
          // One ceremony per run, made only if the run uses its ticket or assertion.
          let ceremony: Promise<{ ticket: string; assertion: string }> | undefined;
          const ceremonyNow = () =>
            (ceremony ??= (async () => {
              const { options, ticket } = await authenticationOptions(config, await listPasskeys(rt.store), rt.now());
              const assertion: AuthenticationResponseJSON = authenticator.authenticate(options);
              return { ticket, assertion: JSON.stringify(assertion) };
            })());
          const answer = await consoleCall(
            rt,
            passkeysApi,
            run,
            {
              ticket: async () => (await ceremonyNow()).ticket,
              assertion: async () => (await ceremonyNow()).assertion,
              passkey: () => credentialId,
            },
            outcomes,
          );
          outcomes.add(outcomeOf(answer, run.spec, PASSKEYS_API));
        }),
        fuzzRuns(RUNS.passkeys),
      );
      outcomes.expectReached([
        "200 /authentication-options",
        "200 /sign-in",
        "200 /registration-options",
        "400 invalid_request",
        "401 wrong_credentials",
        "401 login_required",
        "403 access_denied",
        "404 not_found",
        "405 invalid_request",
        "413 invalid_request",
        "burst 401",
        "burst 429",
      ]);
    },
    propertyTimeout(RUNS.passkeys),
  );

  it(
    `/indieauth/self-test/me refuses every method but GET (and HEAD, which is GET without the body) ${seedNote(RUNS.selfTest)}`,
    async () => {
      // GET fetches the owner's page over the network, so it is not fuzzed here; the parsers it
      // uses (Link headers, microformats rels) are, in parsers.test.ts.
      const rt = await fuzzRuntime();
      const spec = fc.record({
        method: methodArb.filter((m) => !["GET", "HEAD"].includes(m.toUpperCase())),
        target: fc.constantFrom("/indieauth/self-test/me", "/indieauth/self-test/me?x=1"),
        headers: fc.record({ cookie: fc.option(headerString), authorization: fc.option(headerString) }),
        body: bodyArb(fc.constant<Pairs>([["a", "b"]])),
      });
      await fc.assert(
        fc.asyncProperty(spec, async (s) => {
          const response = await answered("self-test", () => selfTestEndpoint(buildRequest(s), rt));
          const answer = await expectDocumentedAnswer(response, { statuses: [405] });
          expect(answer.status).toBe(405);
        }),
        fuzzRuns(RUNS.selfTest),
      );
    },
    propertyTimeout(RUNS.selfTest),
  );
});

/** Registers a software passkey through the console, as the owner would. */
async function registerPasskey(rt: TestRuntime): Promise<SoftAuthenticator> {
  const authenticator = createSoftAuthenticator();
  const cookie = await consoleSignIn(rt);
  const started = await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie });
  expect(started.status).toBe(200);
  const { options, ticket } = (await started.json()) as {
    options: Parameters<SoftAuthenticator["register"]>[0];
    ticket: string;
  };
  const finished = await passkeysPost(
    rt,
    "/registration",
    { ticket, response: JSON.stringify(authenticator.register(options)), name: "Fuzz key" },
    { cookie },
  );
  expect(finished.status).toBe(200);
  return authenticator;
}

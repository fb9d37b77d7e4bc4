// The requests section (1) times, one case per endpoint: each call gets fresh material seeded
// beforehand (its own code, the latest refresh token...) and its answer is checked, untimed.
import { ACCOUNT_API } from "../../netlify/lib/pages/paths.ts";
import { TEST_PASSWORD } from "../../test/helpers/env.ts";
import {
  approveRequest,
  authorizationParams,
  authorizationRequest,
  bearer,
  BASE,
  CLIENT_ID,
  consoleGetRequest,
  introspectionRequest,
  pkcePair,
  post,
  REDIRECT_URI,
  refreshForm,
  userinfoRequest,
} from "../../test/helpers/requests.ts";
import {
  approvedApp,
  endpoints,
  issueCodes,
  issueGrants,
  seedAccount,
  sessionCookie,
  signedRequest,
  type Bench,
} from "./calls.ts";
import { IP, STORAGE_BUDGET, TOTAL_CALLS, USER_AGENT, type StorageBudget } from "./settings.ts";
import { mapBounded, range } from "./stats.ts";

/** Work an endpoint hands to the platform for after its answer (the connection log), as
 * Netlify's context.waitUntil takes it: not in the answer's time, awaited between calls. */
const deferred: Promise<unknown>[] = [];
const platform = { waitUntil: (work: Promise<unknown>) => void deferred.push(work) };

/** Finishes what the last call handed over for after its answer. */
export async function finishDeferredWork(): Promise<void> {
  await Promise.allSettled(deferred.splice(0));
}

export interface EndpointCase {
  name: string;
  /** The Netlify function that serves it. */
  fn: string;
  /** Untimed: the i-th call's request. */
  request(i: number): Request;
  /** Timed: the handler, as the function calls it. */
  handle(req: Request): Promise<Response>;
  /** Untimed: throws on a wrong answer; keeps what the next call needs. */
  check(response: Response): Promise<void>;
  /** Round trips and operations, the least the design needs (none: reported only). */
  storageBudget?: StorageBudget;
}

async function expectStatus(response: Response, status: number, what: string): Promise<void> {
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status} ${await response.text()}`);
}

async function expectJson(response: Response, what: string, field: string): Promise<Record<string, unknown>> {
  await expectStatus(response, 200, what);
  const body = (await response.json()) as Record<string, unknown>;
  if (body[field] === undefined || body[field] === false)
    throw new Error(`${what}: no ${field} in ${JSON.stringify(body)}`);
  return body;
}

const SCOPES = ["profile", "email", "create"];
const benchAuthorization = (challenge: string) =>
  authorizationParams({ state: "bench-state", code_challenge: challenge, scope: SCOPES.join(" ") });
/** The sign-in page's POST, as Chrome sends it: with the password, or on a session cookie. */
const approveWith = (request: string, auth: { password: string } | { cookie: string }) =>
  "password" in auth
    ? approveRequest(request, { password: auth.password, scopes: SCOPES, userAgent: USER_AGENT })
    : approveRequest(request, {
        password: null,
        scopes: SCOPES,
        userAgent: USER_AGENT,
        headers: { Cookie: auth.cookie },
      });

/** The signed request GET /auth hands to the sign-in page (valid 15 minutes, not single use). */
function benchSignedRequest(b: Bench): Promise<string> {
  return signedRequest(b.rt, benchAuthorization(pkcePair().challenge));
}

export async function endpointCases(b: Bench, account: Bench): Promise<EndpointCase[]> {
  const { rt } = b;
  const pkce = pkcePair();
  // Last used 10 minutes ago: each verification endpoint's first call records the use, which
  // shows the rate-limited write in the operation counts (once in all its calls).
  const lastUsed = rt.now() - 10 * 60_000;
  // A fresh signed request for each call: a person approving a new sign-in, not a double click.
  // Four at a time: each GET /auth logs a step to the one app's connection log.
  const freshRequests = await mapBounded(range(TOTAL_CALLS), 4, () => benchSignedRequest(b));
  const [profileCodes, tokenCodes, cookie, request] = await Promise.all([
    issueCodes(b, TOTAL_CALLS, ["profile", "email"], pkce.challenge),
    issueCodes(b, TOTAL_CALLS, SCOPES, pkce.challenge),
    sessionCookie(b),
    benchSignedRequest(b),
    approvedApp(b, SCOPES),
  ]);
  // Grants one after another: each updates the app's one summary record, and writers that keep
  // colliding on one key can run out of tries on the local server's lock.
  const revocable = await issueGrants(b, TOTAL_CALLS);
  const verified = await issueGrants(b, 3, lastUsed);
  const [refreshed] = await issueGrants(b, 1);
  if (verified.length !== 3 || !refreshed) throw new Error("seeding grants failed");
  const accountCookie = await seedAccount(account);
  const token = (n: number) => verified[n]!.accessToken;
  let refreshToken = refreshed.refreshToken;
  const authorization = benchAuthorization(pkce.challenge);
  const redemption = (code: string) => ({
    code,
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    code_verifier: pkce.verifier,
  });
  const caller = { ip: IP, userAgent: USER_AGENT };

  return [
    {
      name: "GET /.well-known/oauth-authorization-server",
      fn: "metadata",
      request: () => new Request(`${BASE}/.well-known/oauth-authorization-server`),
      handle: (req) => endpoints.metadata(req, rt, platform),
      check: async (res) => void (await expectJson(res, "metadata", "issuer")),
      storageBudget: STORAGE_BUDGET.none,
    },
    {
      name: "GET /auth (authorization request)",
      fn: "auth",
      request: () => authorizationRequest(authorization),
      handle: (req) => endpoints.authorize(req, rt, platform),
      check: (res) => expectStatus(res, 303, "GET /auth"),
      storageBudget: STORAGE_BUDGET.authorizationRequest,
    },
    {
      name: "POST /auth/approve (session, a fresh request)",
      fn: "approve",
      request: (i) => approveWith(freshRequests[i]!, { cookie }),
      handle: (req) => endpoints.approve(req, rt, { ...caller, ...platform }),
      check: async (res) => {
        await expectStatus(res, 302, "approve");
        if (!new URL(res.headers.get("location") ?? "", BASE).searchParams.get("code"))
          throw new Error("approve: no code");
      },
      storageBudget: STORAGE_BUDGET.sessionApproval,
    },
    {
      name: "POST /auth/approve (session, the same request again)",
      fn: "approve",
      request: () => approveWith(request, { cookie }),
      handle: (req) => endpoints.approve(req, rt, { ...caller, ...platform }),
      check: async (res) => {
        await expectStatus(res, 302, "approve");
        if (!new URL(res.headers.get("location") ?? "", BASE).searchParams.get("code"))
          throw new Error("approve: no code");
      },
      storageBudget: STORAGE_BUDGET.doubleClick,
    },
    {
      name: "POST /auth (code -> profile)",
      fn: "auth",
      request: (i) => post("/auth", redemption(profileCodes[i]!)),
      handle: (req) => endpoints.profileRedemption(req, rt, platform),
      check: async (res) => void (await expectJson(res, "POST /auth", "me")),
      storageBudget: STORAGE_BUDGET.profileRedemption,
    },
    {
      name: "POST /token (code -> tokens)",
      fn: "token",
      request: (i) => post("/token", { grant_type: "authorization_code", ...redemption(tokenCodes[i]!) }),
      handle: (req) => endpoints.token(req, rt, platform),
      check: async (res) => void (await expectJson(res, "POST /token", "access_token")),
      storageBudget: STORAGE_BUDGET.codeRedemption,
    },
    {
      // Refresh tokens rotate: each call presents the one the previous call returned.
      name: "POST /token (refresh)",
      fn: "token",
      request: () => post("/token", refreshForm(refreshToken)),
      handle: (req) => endpoints.token(req, rt, platform),
      check: async (res) => {
        refreshToken = String((await expectJson(res, "refresh", "refresh_token")).refresh_token);
      },
      storageBudget: STORAGE_BUDGET.refresh,
    },
    {
      name: "POST /introspect",
      fn: "introspect",
      request: () => introspectionRequest(token(0)),
      handle: (req) => endpoints.introspect(req, rt, platform),
      check: async (res) => void (await expectJson(res, "introspect", "active")),
      storageBudget: STORAGE_BUDGET.tokenCheck,
    },
    {
      name: "GET /token (legacy verification)",
      fn: "token",
      request: () => new Request(`${BASE}/token`, { headers: bearer(token(1)) }),
      handle: (req) => endpoints.token(req, rt, platform),
      check: async (res) => void (await expectJson(res, "GET /token", "active")),
      storageBudget: STORAGE_BUDGET.tokenCheck,
    },
    {
      name: "GET /userinfo",
      fn: "userinfo",
      request: () => userinfoRequest(token(2)),
      handle: (req) => endpoints.userinfo(req, rt, platform),
      check: async (res) => void (await expectJson(res, "userinfo", "sub")),
      storageBudget: STORAGE_BUDGET.tokenCheck,
    },
    {
      name: "POST /revoke (live token)",
      fn: "revoke",
      request: (i) => post("/revoke", { token: revocable[i]!.accessToken }),
      handle: (req) => endpoints.revoke(req, rt, platform),
      check: (res) => expectStatus(res, 200, "revoke"),
      storageBudget: STORAGE_BUDGET.revocation,
    },
    {
      name: `GET ${ACCOUNT_API} (session)`,
      fn: "account",
      request: () => consoleGetRequest({ cookie: accountCookie }),
      handle: (req) => endpoints.account(req, account.rt, { ...caller, ...platform }),
      check: async (res) => void (await expectJson(res, "account", "apps")),
    },
  ];
}

/** The sign-in POST that pays for the password check (the deliberate cost). */
export async function passwordApproveCase(b: Bench): Promise<EndpointCase> {
  const request = await benchSignedRequest(b);
  return {
    name: "POST /auth/approve (password)",
    fn: "approve",
    request: () => approveWith(request, { password: TEST_PASSWORD }),
    handle: (req) => endpoints.approve(req, b.rt, { ip: IP, userAgent: USER_AGENT, ...platform }),
    check: (res) => expectStatus(res, 302, "approve with password"),
  };
}

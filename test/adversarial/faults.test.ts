// Faults: Blobs down, or up but silent, behind every endpoint. Each answers with a clear 503
// (JSON `temporarily_unavailable` or a plain page, Retry-After, no stack trace) instead of
// hanging, and nothing is half-issued: no code reaches the client, no token leaves, and the
// same request succeeds once storage is back. A client document that times out leaves the
// sign-in under the same-origin rule only.
import { createServer, type Server } from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { fetchDocument } from "../../netlify/lib/clients/safe-fetch.ts";
import { discoverClient } from "../../netlify/lib/clients/discovery.ts";
import { accountApi } from "../../netlify/lib/endpoints/account.ts";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import { metadataEndpoint } from "../../netlify/lib/endpoints/metadata.ts";
import { passkeysApi } from "../../netlify/lib/endpoints/passkey-api.ts";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { revocationEndpoint } from "../../netlify/lib/endpoints/revocation.ts";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { introspectionEndpoint } from "../../netlify/lib/endpoints/token-verification.ts";
import { userinfoEndpoint } from "../../netlify/lib/endpoints/userinfo.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { startFaultyBlobs, type FaultMode, type FaultyBlobs } from "../helpers/faulty-blobs.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { signedRequest, signInForCode } from "../helpers/endpoints.ts";
import {
  authorizationParams,
  BASE,
  CLIENT_ID,
  codeForm,
  pkcePair,
  REDIRECT_URI,
  type Tokens,
} from "../helpers/requests.ts";
import { tokensFor } from "../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

/** Short, so that "hang" costs the suite little; production uses STORAGE_DEADLINE_MS. */
const DEADLINE_MS = 300;
const info = { ip: "203.0.113.9", userAgent: "test" };

let blobs: FaultyBlobs;
let rt: TestRuntime;
/** The server's log: an outage is logged there (and kept out of the test output). */
let serverLog: MockInstance<typeof console.error>;

beforeAll(async () => {
  blobs = await startFaultyBlobs();
});
afterAll(async () => {
  await blobs?.close();
});

beforeEach(async () => {
  serverLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
  blobs.mode = "pass";
  rt = await testRuntime();
  rt.store = blobStore(rt.storeName, { connection: blobs.connection, deadlineMs: DEADLINE_MS });
});

afterEach(() => {
  serverLog.mockRestore();
});

const same = { Origin: BASE, "Sec-Fetch-Site": "same-origin" };
const form = (fields: Record<string, string>) => ({ method: "POST", body: new URLSearchParams(fields), headers: same });
const jsonPost = (body: Record<string, string>) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { ...same, "Content-Type": "application/json" },
});

/** What the calls need, prepared while storage still works. */
interface Prepared {
  tokens: Tokens;
  request: string;
}

type EndpointCall = (p: Prepared) => Promise<Response>;

function call(handler: (req: Request) => Promise<Response>, path: string, init: RequestInit = {}): Promise<Response> {
  return handler(new Request(`${BASE}${path}`, init));
}
const bearer = (p: Prepared) => ({ headers: { Authorization: `Bearer ${p.tokens.access_token}` } });
const unknownCode = () => ({
  grant_type: "authorization_code",
  code: `ic_${"A".repeat(43)}`,
  client_id: CLIENT_ID,
  redirect_uri: REDIRECT_URI,
  code_verifier: pkcePair().verifier,
});

/** Every endpoint that touches storage, called as its function calls it (inside its frame). */
const ENDPOINTS: [string, "json" | "page", EndpointCall][] = [
  ["GET /auth", "page", () => call((r) => authorizationEndpoint(r, rt), `/auth?${authorizationParams()}`)],
  [
    "POST /auth/approve",
    "page",
    (p) =>
      call(
        (r) => approveEndpoint(r, rt, info),
        "/auth/approve",
        form({ request: p.request, decision: "approve", password: TEST_PASSWORD }),
      ),
  ],
  ["POST /auth", "json", () => call((r) => authorizationEndpoint(r, rt), "/auth", form(unknownCode()))],
  ["POST /token (code)", "json", () => call((r) => tokenEndpoint(r, rt), "/token", form(unknownCode()))],
  [
    "POST /token (refresh)",
    "json",
    (p) =>
      call(
        (r) => tokenEndpoint(r, rt),
        "/token",
        form({ grant_type: "refresh_token", refresh_token: p.tokens.refresh_token, client_id: CLIENT_ID }),
      ),
  ],
  ["GET /token", "json", (p) => call((r) => tokenEndpoint(r, rt), "/token", bearer(p))],
  [
    "POST /introspect",
    "json",
    (p) => call((r) => introspectionEndpoint(r, rt), "/introspect", { method: "POST", ...bearer(p) }),
  ],
  [
    "POST /revoke",
    "json",
    (p) => call((r) => revocationEndpoint(r, rt), "/revoke", form({ token: p.tokens.access_token })),
  ],
  ["GET /userinfo", "json", (p) => call((r) => userinfoEndpoint(r, rt), "/userinfo", bearer(p))],
  ["GET account", "json", () => call((r) => accountApi(r, rt, info), ACCOUNT_API)],
  [
    "POST account sign-in",
    "json",
    () =>
      call(
        (r) => accountApi(r, rt, info),
        `${ACCOUNT_API}/sign-in`,
        jsonPost({ password: TEST_PASSWORD, remember: "true" }),
      ),
  ],
  [
    "POST passkey options",
    "json",
    () => call((r) => passkeysApi(r, rt, info), `${PASSKEYS_API}/authentication-options`, jsonPost({})),
  ],
];

async function expectUnavailable(response: Response, kind: "json" | "page"): Promise<void> {
  expect(response.status).toBe(503);
  expect(serverLog).toHaveBeenCalledWith(expect.stringContaining("storage"));
  expect(response.headers.get("retry-after")).toBe("30");
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("set-cookie")).toBeNull();
  const body = await response.text();
  expect(body).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect(body).not.toMatch(/ic_|iat_|irt_/);
  if (kind === "json") {
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(JSON.parse(body)).toEqual({
      error: "temporarily_unavailable",
      error_description: expect.stringContaining("storage"),
    });
  } else {
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(body).toContain("try again");
  }
}

describe.each<FaultMode>(["down", "hang"])("with Blobs %s, every endpoint answers 503 at once", (mode) => {
  it.each(ENDPOINTS)("%s", async (_name, kind, endpoint) => {
    // Prepared with the store's usual deadline: on a busy machine 300 ms can pass even while
    // storage works, and the preparation is not what is tested.
    const patient: TestRuntime = { ...rt, store: blobStore(rt.storeName, { connection: blobs.connection }) };
    const prepared: Prepared = { tokens: await tokensFor(patient), request: await signedRequest(patient) };
    blobs.mode = mode;
    await expectUnavailable(await endpoint(prepared), kind);
  });

  it("the metadata document needs no storage and still answers", async () => {
    blobs.mode = mode;
    const response = await metadataEndpoint(new Request(`${BASE}/.well-known/oauth-authorization-server`), rt);
    expect(response.status).toBe(200);
  });
});

describe("nothing is half-issued", () => {
  // These also succeed on purpose (before and after the fault): a deadline a busy machine
  // cannot miss while storage works, still far below the Blobs client's own retries.
  beforeEach(() => {
    rt.store = blobStore(rt.storeName, { connection: blobs.connection, deadlineMs: 2000 });
  });

  it("a code that could not be stored never reaches the client, and the sign-in works once storage is back", async () => {
    const request = await signedRequest(rt);
    blobs.mode = "hang-writes";
    const approve = () =>
      approveEndpoint(
        new Request(`${BASE}/auth/approve`, form({ request, decision: "approve", password: TEST_PASSWORD })),
        rt,
        info,
      );
    await expectUnavailable(await approve(), "page");
    blobs.mode = "pass";
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
    const retried = await approve();
    expect(retried.status).toBe(302);
    expect(new URL(retried.headers.get("location")!).searchParams.get("code")).toMatch(/^ic_/);
  });

  it("a token endpoint that cannot write gives out no token, and the client's retry succeeds", async () => {
    const signedIn = await signInForCode(rt);
    blobs.mode = "hang-writes";
    const redeem = () => tokenEndpoint(new Request(`${BASE}/token`, form(codeForm(signedIn))), rt);
    await expectUnavailable(await redeem(), "json");
    blobs.mode = "pass";
    const retried = await redeem();
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ access_token: expect.stringMatching(/^iat_/) });
  });
});

describe("a client document that times out", () => {
  let silent: Server;
  let port: number;
  beforeAll(async () => {
    // Accepts the connection, never answers.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  function slowClientRuntime(): void {
    rt.discover = (clientId) =>
      discoverClient(clientId, {
        cacheMs: 0,
        fetcher: (url) => {
          const local = new URL(url);
          local.hostname = "127.0.0.1";
          return fetchDocument(local, { policy: (ip) => ip === "127.0.0.1", timeoutMs: 300 });
        },
      });
  }

  it("leaves the sign-in going for a redirect_uri on the client's own origin", async () => {
    slowClientRuntime();
    const clientId = `http://slow-client.test:${port}/`;
    const response = await authorizationEndpoint(
      new Request(`${BASE}/auth?${authorizationParams({ client_id: clientId, redirect_uri: `${clientId}callback` })}`),
      rt,
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^\/indieauth\/sign-in\/#request=/);
  });

  it("refuses a redirect_uri elsewhere, which only the unread document could have allowed", async () => {
    slowClientRuntime();
    const clientId = `http://slow-client.test:${port}/`;
    const response = await authorizationEndpoint(
      new Request(
        `${BASE}/auth?${authorizationParams({ client_id: clientId, redirect_uri: "https://elsewhere.example/callback" })}`,
      ),
      rt,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });
});

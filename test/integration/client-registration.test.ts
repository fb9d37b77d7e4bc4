// Dynamic client registration (RFC 7591, issue 32), in-process against the real local Blobs
// server: what POST /register accepts and refuses, that it writes nothing however often anyone
// calls it, that the client_id it answers is recognised by its signature alone (never fetched) and
// served to anyone as a metadata document, and how a registered app signs in, appears in the
// console and is revoked.
import { describe, expect, it } from "vitest";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { consoleGet, consolePost, consoleSignIn, cookieFrom } from "../helpers/console.ts";
import { OperationCounter } from "../helpers/counting-store.ts";
import { CURSOR_REGISTRATION, REGISTERING_HOSTS } from "../helpers/dcr-hosts.ts";
import { approve, authorize, endpoints, introspect, postToken, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, BASE, decodePayload, offerIn, pkcePair, redirectParams } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const CURSOR_IP = "203.0.113.40";

function register(
  rt: TestRuntime,
  body: unknown,
  headers: Record<string, string> = {},
  ip = CURSOR_IP,
): Promise<Response> {
  const request = new Request(`${BASE}/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return endpoints.register(request, rt, { ip, userAgent: "Cursor/1.0.0" });
}

async function registered(rt: TestRuntime, body: unknown = CURSOR_REGISTRATION): Promise<string> {
  const response = await register(rt, body);
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

const documentOf = (rt: TestRuntime, clientId: string) =>
  endpoints.register(new Request(clientId), rt, { ip: "198.51.100.1", userAgent: "reader" });

/** Every key in the test's store, whatever its kind. */
async function everyRecord(rt: TestRuntime): Promise<string[]> {
  return rt.store.list("");
}

/** GET /auth as Cursor's loopback callback asks (any port), in the owner's browser. */
function cursorParams(clientId: string, overrides: Record<string, string | null> = {}): URLSearchParams {
  return authorizationParams({
    client_id: clientId,
    redirect_uri: "http://localhost:8787/callback",
    scope: "create",
    me: null,
    ...overrides,
  });
}

describe("POST /register: public clients, each redirect URI checked", () => {
  it("registers Cursor as it registers: 201, no-store, the client_id and the metadata as kept", async () => {
    const rt = await testRuntime();
    const response = await register(rt, CURSOR_REGISTRATION);
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({
      client_id: expect.stringMatching(/^https:\/\/auth\.jane\.example\/register\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/),
      client_id_issued_at: Math.floor(rt.now() / 1000),
      client_name: "Cursor",
      redirect_uris: CURSOR_REGISTRATION.redirect_uris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    // Short enough for any client to keep: three redirect URIs and a name in about 300 characters.
    expect((body.client_id as string).length).toBeLessThan(320);
    // Each registration is an app of its own, even with the same metadata.
    expect(await registered(rt)).not.toBe(body.client_id);
  });

  it("registers every DCR host's documented body; what it does not keep (scope, client_uri, application_type) is left out", async () => {
    const rt = await testRuntime();
    const d = { resource: "https://jane.example/mcp", scopes: ["read"], offlineAccess: true, port: 49200 };
    for (const host of REGISTERING_HOSTS) {
      const response = await register(rt, host.registration(d));
      expect(response.status, host.name).toBe(201);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body, host.name).toMatchObject({ client_name: host.clientName, token_endpoint_auth_method: "none" });
      expect(body, host.name).not.toHaveProperty("scope");
      expect(body, host.name).not.toHaveProperty("client_uri");
    }
  });

  it("ignores grants it never issues (VS Code's device_code) and members of any JSON type", async () => {
    const rt = await testRuntime();
    const body = {
      ...CURSOR_REGISTRATION,
      grant_types: ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
      default_max_age: 60,
      jwks: { keys: [] },
      require_auth_time: false,
    };
    expect((await register(rt, body)).status).toBe(201);
    const unnamed = await register(rt, { redirect_uris: ["http://127.0.0.1/callback"] });
    expect(unnamed.status).toBe(201);
    expect(await unnamed.json()).not.toHaveProperty("client_name");
  });

  it.each([
    ["javascript:alert(1)", "javascript:"],
    ["data:text/html,<script>alert(1)</script>", "data:"],
    ["http://evil.example/callback", "loopback address only"],
    ["http://localhost.evil.example/callback", "loopback address only"],
    ["https://app.example/callback#done", "fragment"],
    ["https://*.example.com/callback", "wildcard"],
    ["http://localhost:*/callback", "wildcard"],
    ["myapp:/callback", "reverse-domain form"],
    ["myapp://callback", "reverse-domain form"],
    ["ftp://files.example.com/callback", "reverse-domain form"],
    ["https://user:pw@app.example/callback", "username or password"],
    [`${BASE}/indieauth/account/`, "on this server itself"],
    ["/relative/callback", "not an absolute URL"],
  ])("refuses the redirect URI %s with invalid_redirect_uri", async (uri, reason) => {
    const rt = await testRuntime();
    // Beside two good ones: one bad URI refuses the whole registration.
    const response = await register(rt, {
      ...CURSOR_REGISTRATION,
      redirect_uris: ["http://localhost:8787/callback", uri, "com.example.app:/callback"],
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description).toContain(reason);
  });

  it("refuses no redirect URIs, too many, or a list of anything but strings", async () => {
    const rt = await testRuntime();
    const many = Array.from({ length: 9 }, (_, i) => `http://127.0.0.1/callback/${i}`);
    for (const [redirects, error] of [
      [undefined, "invalid_redirect_uri"],
      [[], "invalid_redirect_uri"],
      [many, "invalid_redirect_uri"],
      ["http://127.0.0.1/callback", "invalid_client_metadata"],
      [[42], "invalid_client_metadata"],
    ] as const) {
      const response = await register(rt, { client_name: "X", redirect_uris: redirects });
      expect(response.status, JSON.stringify(redirects)).toBe(400);
      expect(((await response.json()) as { error: string }).error, JSON.stringify(redirects)).toBe(error);
    }
  });

  it.each(["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "tls_client_auth"])(
    "refuses token_endpoint_auth_method %s with invalid_client_metadata",
    async (method) => {
      const rt = await testRuntime();
      const response = await register(rt, { ...CURSOR_REGISTRATION, token_endpoint_auth_method: method });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: "invalid_client_metadata",
        error_description: expect.stringContaining("none"),
      });
    },
  );

  it("refuses grants without authorization_code, and response types without code", async () => {
    const rt = await testRuntime();
    for (const extra of [
      { grant_types: ["client_credentials"] },
      { grant_types: ["refresh_token"] },
      { response_types: ["token"] },
      { client_name: 7 },
    ]) {
      const response = await register(rt, { ...CURSOR_REGISTRATION, ...extra });
      expect(response.status, JSON.stringify(extra)).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe("invalid_client_metadata");
    }
  });

  it("refuses a body that is no JSON object, or too large, with the standard error and nothing stored", async () => {
    const rt = await testRuntime();
    const form = await endpoints.register(
      new Request(`${BASE}/register`, {
        method: "POST",
        body: new URLSearchParams({ client_name: "X", redirect_uris: "http://127.0.0.1/cb" }),
      }),
      rt,
      { ip: CURSOR_IP, userAgent: "" },
    );
    expect(form.status).toBe(400);
    for (const body of ["[]", "{", '"x"']) expect((await register(rt, body)).status, body).toBe(400);
    const huge = await register(rt, { ...CURSOR_REGISTRATION, padding: "x".repeat(17 * 1024) });
    expect(huge.status).toBe(413);
    // A name and redirect URIs that would make a client_id too long for clients to keep.
    const long = await register(rt, {
      client_name: "n".repeat(60),
      redirect_uris: Array.from({ length: 8 }, (_, i) => `https://app.example/${String(i).repeat(480)}`),
    });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("too long"),
    });
    expect(await everyRecord(rt)).toEqual([]);
  });

  it("answers a browser host's preflight (MCP Inspector registers from its own page), never with credentials", async () => {
    const rt = await testRuntime();
    const preflight = await endpoints.register(
      new Request(`${BASE}/register`, {
        method: "OPTIONS",
        headers: {
          Origin: "http://localhost:6274",
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "content-type",
        },
      }),
      rt,
      { ip: CURSOR_IP, userAgent: "" },
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("Content-Type");
    expect(preflight.headers.get("access-control-allow-credentials")).toBeNull();
  });
});

describe("registration stores nothing", () => {
  it("a flood of registrations from many addresses writes, reads and lists nothing", async () => {
    const counter = new OperationCounter();
    const rt = await testRuntime({ wrapStore: (store) => counter.wrap(store) });
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        register(
          rt,
          { ...CURSOR_REGISTRATION, client_name: `Flood ${i}` },
          {},
          `198.51.${Math.floor(i / 250)}.${i % 250}`,
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(300).fill(201));
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 0, deletes: 0, lists: 0 });
    expect(await everyRecord(rt)).toEqual([]);
  });
});

describe("a registered app's client_id", () => {
  it("is served to anyone as a Client ID Metadata Document naming itself, cacheable; a changed one is not", async () => {
    const rt = await testRuntime();
    const clientId = await registered(rt);
    const response = await documentOf(rt, clientId);
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(await response.json()).toEqual({
      client_id: clientId,
      client_name: "Cursor",
      redirect_uris: CURSOR_REGISTRATION.redirect_uris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    const tail = clientId.at(-1) === "A" ? "B" : "A";
    for (const changed of [
      `${clientId.slice(0, -1)}${tail}`,
      clientId.replace("/register/", "/register/x"),
      `${clientId}?x=1`,
      `${BASE}/register/`,
    ]) {
      expect((await documentOf(rt, changed)).status, changed).toBe(404);
    }
  });

  it("signs in as any app known by its document, without a fetch: exactly its redirect URIs (loopback on any port)", async () => {
    const rt = await testRuntime({ discover: () => Promise.reject(new Error("a registered client_id was fetched")) });
    const clientId = await registered(rt);
    for (const redirect of [
      "http://localhost:8787/callback",
      "http://localhost:51234/callback",
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://www.cursor.com/agents/mcp/oauth/callback",
    ]) {
      const payload = decodePayload(await signedRequest(rt, cursorParams(clientId, { redirect_uri: redirect })));
      expect(payload, redirect).toMatchObject({
        clientId,
        redirectUri: redirect,
        clientRead: "metadata-document",
        client: { name: "Cursor", registered: true },
      });
      expect(payload.client, redirect).not.toHaveProperty("loopbackOnly");
    }
    // Not another path on loopback (a loopback client_id's origin would allow it), nor this server's pages.
    for (const redirect of [
      "http://localhost:8787/other",
      "http://127.0.0.1:8787/callback",
      "https://www.cursor.com/other",
      `${BASE}/indieauth/account/`,
      "cursor://anysphere.cursor-mcp/other",
    ]) {
      const response = await authorize(rt, cursorParams(clientId, { redirect_uri: redirect }));
      expect(response.status, redirect).toBe(400);
      expect(await response.text(), redirect).toContain("not one of the redirect addresses it registered");
    }
  });

  it("on a server at a loopback address (npm start), is still held to its registered redirect URIs", async () => {
    // There the client_id is http://localhost:8888/register/…: a loopback client_id, whose own
    // origin would take any loopback redirect URI on its host (RFC 8252 7.3).
    const local = "http://localhost:8888";
    const rt = await testRuntime({
      env: { CONTEXT: "dev", BASE_URL: local, ME: `${local}/` },
      discover: () => Promise.reject(new Error("fetched")),
    });
    const response = await endpoints.register(
      new Request(`${local}/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(CURSOR_REGISTRATION),
      }),
      rt,
      { ip: CURSOR_IP, userAgent: "" },
    );
    const { client_id: clientId } = (await response.json()) as { client_id: string };
    expect(clientId.startsWith(`${local}/register/`)).toBe(true);
    const params = (redirect: string) =>
      new Request(`${local}/auth?${cursorParams(clientId, { redirect_uri: redirect }).toString()}`);
    expect((await endpoints.authorize(params("http://localhost:8787/callback"), rt)).status).toBe(303);
    for (const redirect of ["http://localhost:9999/anything", "http://localhost:8888/register/steal"]) {
      const refused = await endpoints.authorize(params(redirect), rt);
      expect(refused.status, redirect).toBe(400);
      expect(await refused.text(), redirect).toContain("not one of the redirect addresses it registered");
    }
  });

  it("changed in any way, stops the sign-in with a page that says so, and is never fetched", async () => {
    const rt = await testRuntime({ discover: () => Promise.reject(new Error("a registered client_id was fetched")) });
    const clientId = await registered(rt);
    const [payload, tag] = clientId.slice(`${BASE}/register/`.length).split(".") as [string, string];
    // Another app's redirect URI put in: the tag no longer matches.
    const forged = Buffer.from(JSON.stringify(["Cursor", ["https://evil.example/callback"], "x"])).toString(
      "base64url",
    );
    // Any /register address on this host, whatever its scheme or port, is this server's: never fetched.
    const other = (scheme: string) => clientId.replace("https://auth.jane.example", scheme);
    for (const changed of [
      `${BASE}/register/${forged}.${tag}`,
      `${BASE}/register/${payload}.${tag.slice(0, -2)}AA`,
      `${BASE}/register/${payload}`,
      `${BASE}/register`,
      other("http://auth.jane.example"),
      other("https://auth.jane.example:8443"),
    ]) {
      const response = await authorize(rt, cursorParams(changed, { redirect_uri: "https://evil.example/callback" }));
      expect(response.status, changed).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text(), changed).toContain("registration is not valid here");
    }
  });

  it("under another SECRET is no longer known: rotating SECRET drops every registration", async () => {
    const rt = await testRuntime();
    const clientId = await registered(rt);
    const other = await testRuntime({ env: { SECRET: "another-secret-of-at-least-thirty-two-characters" } });
    expect((await authorize(other, cursorParams(clientId))).status).toBe(400);
    expect((await documentOf(other, clientId)).status).toBe(404);
  });
});

describe("approving a registered app", () => {
  async function signedInCookie(rt: TestRuntime): Promise<string> {
    return consoleSignIn(rt, { remember: true });
  }

  it("a session alone never approves it the first time: the password or a passkey does", async () => {
    const rt = await testRuntime();
    const cookie = await signedInCookie(rt);
    const clientId = await registered(rt);
    expect(offerIn(await authorize(rt, cursorParams(clientId), { Cookie: cookie }))).toEqual({
      session: false,
      passkey: false,
      password: true,
      signedIn: "new-app",
    });
    const refused = await approve(rt, await signedRequest(rt, cursorParams(clientId)), {
      password: null,
      headers: { Cookie: cookie },
      scopes: ["create"],
    });
    expect(new URLSearchParams((refused.headers.get("location") ?? "").split("#")[1]).get("error")).toBe("confirm");
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("approved with the password for its loopback redirect, a session may approve that registration again there; never another registration", async () => {
    const rt = await testRuntime();
    const clientId = await registered(rt);
    const first = await approve(rt, await signedRequest(rt, cursorParams(clientId)), {
      remember: true,
      scopes: ["create"],
    });
    expect(redirectParams(first).get("code")).toMatch(/^ic_/);
    const cookie = cookieFrom(first);
    expect(
      offerIn(
        await authorize(rt, cursorParams(clientId, { redirect_uri: "http://localhost:40001/callback" }), {
          Cookie: cookie,
        }),
      ),
    ).toEqual({ session: true });
    // The same metadata registered again is another app: the password again.
    const again = await registered(rt);
    expect(offerIn(await authorize(rt, cursorParams(again), { Cookie: cookie }))).toMatchObject({
      session: false,
      signedIn: "new-app",
    });
  });

  it("to a web address or an app link, a session never approves it, even approved before: each new connection needs the password or a passkey", async () => {
    const rt = await testRuntime();
    const clientId = await registered(rt);
    for (const redirect of [
      "cursor://anysphere.cursor-mcp/oauth/callback",
      "https://www.cursor.com/agents/mcp/oauth/callback",
    ]) {
      const first = await approve(rt, await signedRequest(rt, cursorParams(clientId, { redirect_uri: redirect })), {
        remember: true,
        scopes: ["create"],
      });
      expect(first.headers.get("location"), redirect).toMatch(
        new RegExp(`^${redirect.replace(/[.:/]/g, "\\$&")}\\?code=ic_`),
      );
      expect(
        offerIn(await authorize(rt, cursorParams(clientId, { redirect_uri: redirect }), { Cookie: cookieFrom(first) })),
        redirect,
      ).toMatchObject({ session: false, signedIn: "registered-app" });
    }
  });

  it("redeems its code as a public client, is listed in the console like any app, and Revoke cuts it off", async () => {
    const rt = await testRuntime();
    const clientId = await registered(rt);
    const { verifier, challenge } = pkcePair();
    const callback = redirectParams(
      await approve(rt, await signedRequest(rt, cursorParams(clientId, { code_challenge: challenge })), {
        scopes: ["create"],
      }),
    );
    const token = await postToken(rt, {
      grant_type: "authorization_code",
      code: callback.get("code")!,
      client_id: clientId,
      redirect_uri: "http://localhost:8787/callback",
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const { access_token, refresh_token } = (await token.json()) as { access_token: string; refresh_token: string };
    expect(await (await introspect(rt, access_token)).json()).toMatchObject({
      active: true,
      client_id: clientId,
      scope: "create",
    });

    const cookie = await consoleSignIn(rt);
    const apps = (
      (await (await consoleGet(rt, { cookie })).json()) as { apps: { id: string; clientId: string; name?: string }[] }
    ).apps;
    const app = apps.find((a) => a.clientId === clientId);
    expect(app).toMatchObject({ name: "Cursor" });
    expect((await consolePost(rt, "/revoke", { app: app!.id }, { cookie })).status).toBe(200);
    expect(await (await introspect(rt, access_token)).json()).toEqual({ active: false });
    const refreshed = await postToken(rt, { grant_type: "refresh_token", refresh_token, client_id: clientId });
    expect(refreshed.status).toBe(400);
    // And the next sign-in needs the password again.
    expect(offerIn(await authorize(rt, cursorParams(clientId), { Cookie: cookie }))).toMatchObject({ session: false });
  });
});

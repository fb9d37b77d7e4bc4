// Real clients over real HTTP, through `netlify dev`: openid-client's code flow for an app
// whose site is served locally (a web app on its own origin, and a native app whose loopback
// listener is on another port than its client_id), a Go-style token request that tries Basic
// credentials first (golang.org/x/oauth2's AuthStyleAutoDetect), and what older clients and
// people do: form-encoded refusals, the `post` scope, a double-clicked Approve, and
// introspection without a credential.
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const ME = "https://jane.example/";

let server: NetlifyDev;
let site: ClientSite;

beforeAll(async () => {
  [server, site] = await Promise.all([startNetlifyDev(), startClientSite()]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), site?.close()]);
});

/** The sign-in page's own POST /auth/approve for the request GET /auth handed it. */
function approve(request: string, scopes: string[]): Promise<Response> {
  const body = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
  for (const scope of scopes) body.append("scope", scope);
  return fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Origin: server.baseUrl, "Sec-Fetch-Site": "same-origin" },
  });
}

/** Opens the authorization URL as the browser would and returns the signed request. */
async function signedRequestFor(url: URL): Promise<string> {
  const start = await fetch(url, { redirect: "manual" });
  expect(start.status).toBe(303);
  return new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request")!;
}

/** Follows the redirect back to the client's site, which records it: the callback URL. */
async function backAtClient(approved: Response): Promise<URL> {
  expect(approved.status).toBe(302);
  const location = approved.headers.get("location")!;
  expect((await fetch(location)).status).toBe(200);
  const callback = site.callbacks.at(-1)!;
  expect(callback.href).toBe(location);
  return callback;
}

async function discover(clientId: string): Promise<client.Configuration> {
  return client.discovery(new URL(`${server.baseUrl}/`), clientId, undefined, client.None(), {
    algorithm: "oauth2",
    execute: [client.allowInsecureRequests],
  });
}

interface CodeFlow {
  config: client.Configuration;
  callback: URL;
  verifier: string;
  state: string;
}

/** openid-client builds the authorization URL; the owner approves; the browser comes back. */
async function authorizeWith(clientId: string, redirectUri: string, scope: string): Promise<CodeFlow> {
  const config = await discover(clientId);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    me: ME,
  });
  const callback = await backAtClient(await approve(await signedRequestFor(url), scope.split(" ")));
  return { config, callback, verifier, state };
}

function redeem(flow: CodeFlow, redirectUri: string) {
  return client.authorizationCodeGrant(
    flow.config,
    flow.callback,
    { pkceCodeVerifier: flow.verifier, expectedState: flow.state },
    { redirect_uri: redirectUri },
  );
}

describe("openid-client's authorization code flow", () => {
  it("a web app on its own origin: code, tokens, refresh, userinfo, revocation", async () => {
    const clientId = `${site.origin}/`;
    const redirectUri = `${site.origin}/callback`;
    const flow = await authorizeWith(clientId, redirectUri, "profile email create");
    // openid-client checked state and iss (RFC 9207) against the discovered issuer.
    expect(flow.callback.searchParams.get("iss")).toBe(`${server.baseUrl}/`);
    const tokens = await redeem(flow, redirectUri);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("profile email create");
    expect(tokens.me).toBe(ME);

    const refreshed = await client.refreshTokenGrant(flow.config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    const userinfo = await client.fetchUserInfo(flow.config, refreshed.access_token, client.skipSubjectCheck);
    expect(userinfo).toMatchObject({ sub: ME, name: "Jane Doe", email: "jane@jane.example" });

    await client.tokenRevocation(flow.config, refreshed.refresh_token!);
    const after = await fetch(`${server.baseUrl}/userinfo`, {
      headers: { Authorization: `Bearer ${refreshed.access_token}` },
    });
    expect(after.status).toBe(401);
  });

  it("a native app (RFC 8252 7.3): client_id on one loopback port, its listener on another", async () => {
    // The app's id names no port it listens on; its listener got an ephemeral one.
    const clientId = "http://127.0.0.1/";
    const redirectUri = `${site.origin}/callback`;
    expect(new URL(redirectUri).port).not.toBe("");
    const flow = await authorizeWith(clientId, redirectUri, "profile create");
    const tokens = await redeem(flow, redirectUri);
    expect(tokens.scope).toBe("profile create");
    const introspected = await fetch(`${server.baseUrl}/introspect`, {
      method: "POST",
      headers: { Authorization: `Bearer ${tokens.access_token}` },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(await introspected.json()).toMatchObject({ active: true, client_id: clientId, scope: "profile create" });
  });

  it("an older client asking for `post` gets a token that says `post create`", async () => {
    const redirectUri = `${site.origin}/callback`;
    const tokens = await redeem(await authorizeWith(`${site.origin}/`, redirectUri, "profile post"), redirectUri);
    expect(tokens.scope).toBe("profile post create");
  });

  it("introspecting without a credential: openid-client sees the bare Bearer challenge (RFC 6750 3.1)", async () => {
    const config = await discover(`${site.origin}/`);
    // openid-client authenticates as a public client (client_id in the body), which is no credential here.
    const thrown = await client.tokenIntrospection(config, "iat_whatever").then(
      () => null,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const challenge = thrown as client.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause).toEqual([{ scheme: "bearer", parameters: { realm: "indieauth" } }]);
    const raw = await fetch(`${server.baseUrl}/introspect`, {
      method: "POST",
      body: new URLSearchParams({ token: "iat_whatever" }),
    });
    expect(raw.headers.get("www-authenticate")).toBe('Bearer realm="indieauth"');
    expect(await raw.json()).not.toHaveProperty("error");
  });
});

describe("a Go client (golang.org/x/oauth2) at the token endpoint", () => {
  const clientId = () => `${site.origin}/`;
  const redirectUri = () => `${site.origin}/callback`;

  /** Go's url.QueryEscape, as x/oauth2 applies it to the client_id and secret. */
  function goBasic(id: string, secret = ""): string {
    const escape = (v: string) =>
      encodeURIComponent(v)
        .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
        .replace(/%20/g, "+");
    return `Basic ${Buffer.from(`${escape(id)}:${escape(secret)}`).toString("base64")}`;
  }

  async function codeAndVerifier(): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkcePair();
    const url = new URL(`${server.baseUrl}/auth`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: clientId(),
      redirect_uri: redirectUri(),
      state: "go",
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "profile create",
    }))
      url.searchParams.set(name, value);
    const callback = await backAtClient(await approve(await signedRequestFor(url), ["profile", "create"]));
    return { code: callback.searchParams.get("code")!, verifier };
  }

  /** x/oauth2's token request: in the header (no client_id in the body), or in the params. */
  function tokenRequest(code: string, verifier: string, authorization: string | null): Promise<Response> {
    const body = new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri(),
      code_verifier: verifier,
    });
    if (authorization === null) body.set("client_id", clientId());
    const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
    if (authorization !== null) headers.Authorization = authorization;
    return fetch(`${server.baseUrl}/token`, { method: "POST", body, headers });
  }

  it("its first try, the client_id as Basic credentials with an empty password, is accepted", async () => {
    const { code, verifier } = await codeAndVerifier();
    const response = await tokenRequest(code, verifier, goBasic(clientId()));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ token_type: "Bearer", scope: "profile create", me: ME });
  });

  it("a Basic try with a secret is refused (401 invalid_client, Basic challenge); the retry without it gets tokens for the same code", async () => {
    const { code, verifier } = await codeAndVerifier();
    const refused = await tokenRequest(code, verifier, goBasic(clientId(), "configured-secret"));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="indieauth"');
    expect(await refused.json()).toMatchObject({ error: "invalid_client" });
    const retry = await tokenRequest(code, verifier, null);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toHaveProperty("access_token");
  });
});

describe("older clients and people", () => {
  it("a client that asks for form encoding gets its refusal form-encoded", async () => {
    const response = await fetch(`${server.baseUrl}/token`, {
      method: "POST",
      headers: { Accept: "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: "ic_nope",
        client_id: `${site.origin}/`,
        redirect_uri: `${site.origin}/callback`,
        code_verifier: "a".repeat(43),
      }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(await response.text()).get("error")).toBe("invalid_grant");
  });

  it("a double-clicked Approve sends the browser back once, with one code", async () => {
    const { challenge } = pkcePair();
    const url = new URL(`${server.baseUrl}/auth`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: `${site.origin}/`,
      redirect_uri: `${site.origin}/callback`,
      state: "twice",
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "profile",
    }))
      url.searchParams.set(name, value);
    const request = await signedRequestFor(url);
    const [first, second] = await Promise.all([approve(request, ["profile"]), approve(request, ["profile"])]);
    expect(first.status).toBe(302);
    expect(second.headers.get("location")).toBe(first.headers.get("location"));
  });
});

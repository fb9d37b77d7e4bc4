// The token half over real HTTP, through `netlify dev`, driven by a real OAuth client library
// (oauth4webapi) the way an app would: discovery, authorization code + PKCE, refresh with
// rotation, introspection, userinfo and revocation; plus the IndieAuth-specific corners (the
// profile-only redemption at POST /auth, codes without scope, the legacy GET /token).
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";

const CLIENT_ID = "http://127.0.0.1:5173/";
const REDIRECT_URI = "http://127.0.0.1:5173/callback";
const ME = "https://jane.example/";
const PROFILE = { name: "Jane Doe", url: ME, photo: "https://jane.example/photo.jpg" } as const;
const PROFILE_WITH_EMAIL = { ...PROFILE, email: "jane@jane.example" } as const;
const SCOPE = "profile email create";

/** The server is plain http on localhost, which oauth4webapi refuses unless told otherwise. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const client: oauth.Client = { client_id: CLIENT_ID };

let server: NetlifyDev;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  server = await startNetlifyDev();
  const issuer = new URL(server.baseUrl);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
  );
});
afterAll(async () => {
  await server?.stop();
});

/** Client authentication for the introspection endpoint, which authorises the caller by a
 * Bearer header carrying the token being checked. (oauth4webapi refuses an Authorization
 * header in `options.headers`, so it is set the way a client-authentication method would.) */
function bearer(token: string): oauth.ClientAuth {
  return (_as, c, body, headers) => {
    body.set("client_id", c.client_id);
    headers.set("authorization", `Bearer ${token}`);
  };
}

function sortedScopes(scope: unknown): string[] {
  expect(typeof scope).toBe("string");
  return (scope as string).split(" ").filter(Boolean).sort();
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

async function expectOAuthError(promise: Promise<unknown>, error: string): Promise<void> {
  const thrown = await rejectionOf(promise);
  expect(thrown).toBeInstanceOf(oauth.ResponseBodyError);
  expect((thrown as oauth.ResponseBodyError).error).toBe(error);
}

function expectNoStoreJson(response: Response): void {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.headers.get("cache-control")).toBe("no-store");
}

interface Authorization {
  verifier: string;
  state: string;
  /** The validated callback parameters (code, state, iss). */
  callback: URLSearchParams;
}

/** Builds the authorization URL as a client would, signs in through the page's own POST
 * (ticking exactly the requested scopes) and validates the redirect back. */
async function authorize(scope: string | null): Promise<Authorization> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", CLIENT_ID);
  url.searchParams.set("redirect_uri", REDIRECT_URI);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  if (scope !== null) url.searchParams.set("scope", scope);
  url.searchParams.set("me", ME);

  const start = await fetch(url, { redirect: "manual" });
  expect(start.status).toBe(303);
  const request = new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request");
  expect(request).toBeTruthy();
  const body = new URLSearchParams({ request: request!, decision: "approve", password: TEST_PASSWORD });
  for (const s of scope?.split(" ") ?? []) body.append("scope", s);
  const approved = await fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Origin: server.baseUrl, "Sec-Fetch-Site": "same-origin" },
  });
  expect(approved.status).toBe(302);
  const location = new URL(approved.headers.get("location")!);
  expect(location.origin + location.pathname).toBe(REDIRECT_URI);
  // Checks iss against the discovered issuer and state against ours.
  const callback = oauth.validateAuthResponse(as, client, location, state);
  return { verifier, state, callback };
}

function codeGrant(auth: Authorization): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    auth.callback,
    REDIRECT_URI,
    auth.verifier,
    insecure,
  );
}

async function signInForTokens(scope = SCOPE): Promise<oauth.TokenEndpointResponse> {
  return oauth.processAuthorizationCodeResponse(as, client, await codeGrant(await authorize(scope)));
}

function refresh(refreshToken: string): Promise<Response> {
  return oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure);
}

async function introspect(token: string): Promise<oauth.IntrospectionResponse> {
  const response = await oauth.introspectionRequest(as, client, bearer(token), token, insecure);
  expectNoStoreJson(response);
  return oauth.processIntrospectionResponse(as, client, response);
}

/** POST /introspect by hand, to see the exact body. */
async function rawIntrospect(token: string): Promise<Response> {
  return fetch(as.introspection_endpoint!, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, Accept: "application/json" },
    body: new URLSearchParams({ token }),
  });
}

function userinfo(token: string): Promise<Response> {
  return fetch(as.userinfo_endpoint!, { headers: { Authorization: `Bearer ${token}` } });
}

describe("tokens through netlify dev, with oauth4webapi as the client", () => {
  it("discovers the server (RFC 8414)", () => {
    expect(as.issuer).toBe(`${server.baseUrl}/`);
    expect(as.authorization_endpoint).toBe(`${server.baseUrl}/auth`);
    expect(as.token_endpoint).toBe(`${server.baseUrl}/token`);
    expect(as.introspection_endpoint).toBe(`${server.baseUrl}/introspect`);
    expect(as.revocation_endpoint).toBe(`${server.baseUrl}/revoke`);
    expect(as.userinfo_endpoint).toBe(`${server.baseUrl}/userinfo`);
    expect(as.code_challenge_methods_supported).toContain("S256");
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
  });

  it("issues, verifies, refreshes and revokes tokens", async () => {
    // Authorization code + PKCE.
    const tokenResponse = await codeGrant(await authorize(SCOPE));
    expect(tokenResponse.status).toBe(200);
    expectNoStoreJson(tokenResponse);
    expect(tokenResponse.headers.get("pragma")).toBe("no-cache");
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).not.toBe(tokens.access_token);
    expect(sortedScopes(tokens.scope)).toEqual(["create", "email", "profile"]);
    expect(tokens.me).toBe(ME);
    expect(tokens.expires_in).toBeGreaterThan(0);
    expect(tokens.profile).toEqual(PROFILE_WITH_EMAIL);

    // Introspection, authorised by the token itself.
    const info = await introspect(tokens.access_token);
    expect(info.active).toBe(true);
    expect(info.me).toBe(ME);
    expect(info.client_id).toBe(CLIENT_ID);
    expect(sortedScopes(info.scope)).toEqual(["create", "email", "profile"]);
    expect(Number.isInteger(info.exp)).toBe(true);
    expect(Number.isInteger(info.iat)).toBe(true);
    expect(info.exp!).toBeGreaterThan(info.iat!);

    // The legacy IndieAuth verification: GET /token with the Bearer header.
    const legacy = await fetch(as.token_endpoint!, { headers: { Authorization: `Bearer ${tokens.access_token}` } });
    expect(legacy.status).toBe(200);
    expectNoStoreJson(legacy);
    expect(await legacy.json()).toEqual({ ...info });

    // Userinfo: the profile, with the e-mail address because `email` was granted.
    const user = await userinfo(tokens.access_token);
    expect(user.status).toBe(200);
    expectNoStoreJson(user);
    expect(await user.json()).toEqual({ sub: ME, ...PROFILE_WITH_EMAIL });

    // Refresh: both tokens are replaced.
    const refreshResponse = await refresh(tokens.refresh_token!);
    expect(refreshResponse.status).toBe(200);
    expectNoStoreJson(refreshResponse);
    expect(refreshResponse.headers.get("pragma")).toBe("no-cache");
    const refreshed = await oauth.processRefreshTokenResponse(as, client, refreshResponse);
    expect(refreshed.token_type).toBe("bearer");
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.expires_in).toBeGreaterThan(0);
    expect(sortedScopes(refreshed.scope)).toEqual(["create", "email", "profile"]);
    expect(refreshed.me).toBe(ME);
    expect(await introspect(refreshed.access_token)).toMatchObject({ active: true, me: ME, client_id: CLIENT_ID });

    // Revocation (RFC 7009), then the token is dead everywhere.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, oauth.None(), refreshed.access_token, insecure),
    );
    const dead = await rawIntrospect(refreshed.access_token);
    expect(dead.status).toBe(200);
    expectNoStoreJson(dead);
    expect(await dead.json()).toEqual({ active: false });
    const refused = await userinfo(refreshed.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
  }, 60_000);

  it("refuses a rotated refresh token used again, and withdraws the whole grant", async () => {
    const tokens = await signInForTokens();
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await refresh(tokens.refresh_token!));
    expect(await introspect(refreshed.access_token)).toMatchObject({ active: true });

    const reuse = await refresh(tokens.refresh_token!);
    expect(reuse.status).toBe(400);
    expectNoStoreJson(reuse);
    await expectOAuthError(oauth.processRefreshTokenResponse(as, client, reuse), "invalid_grant");

    // The reuse may mean the refresh token was stolen: everything the grant gave is gone.
    const dead = await rawIntrospect(refreshed.access_token);
    expect(dead.status).toBe(200);
    expect(await dead.json()).toEqual({ active: false });
    await expectOAuthError(
      oauth.processRefreshTokenResponse(as, client, await refresh(refreshed.refresh_token!)),
      "invalid_grant",
    );
  }, 60_000);

  it("redeems a code at POST /auth for the profile only, and that code is then spent at /token", async () => {
    const auth = await authorize(SCOPE);
    const code = auth.callback.get("code")!;
    const fields = {
      grant_type: "authorization_code",
      code,
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      code_verifier: auth.verifier,
    };

    const profile = await fetch(`${server.baseUrl}/auth`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams(fields),
    });
    expect(profile.status).toBe(200);
    expectNoStoreJson(profile);
    expect(await profile.json()).toEqual({ me: ME, profile: PROFILE_WITH_EMAIL });

    const again = await fetch(as.token_endpoint!, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams(fields),
    });
    expect(again.status).toBe(400);
    expectNoStoreJson(again);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
  }, 60_000);

  it("gives no token for a code issued without any scope", async () => {
    const auth = await authorize(null);
    const response = await codeGrant(auth);
    expect(response.status).toBe(400);
    expectNoStoreJson(response);
    await expectOAuthError(oauth.processAuthorizationCodeResponse(as, client, response), "invalid_grant");
  }, 60_000);
});

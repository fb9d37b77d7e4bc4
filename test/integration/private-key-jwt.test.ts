// Clients whose Client ID Metadata Document declares private_key_jwt (RFC 7523, CIMD draft 4.1),
// as ChatGPT's does: the document and its JWK Set are served by a local server (the one thing
// these tests stand in for: the client's website), discovery and the key fetch reach it over
// http at 127.0.0.1 and nothing else, and openid-client signs the assertions with its own
// PrivateKeyJwt (and its ClientSecretJwt, for the HS256 refusal). The handlers run in process
// with the real local Blobs server.
// ChatGPT's document below copies the fields of https://chatgpt.com/oauth/client.json as
// fetched 2026-09-08 (docs/research/mcp-hosts.md, "ChatGPT"), under a local client_id.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import * as client from "openid-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AddressPolicy } from "../../netlify/lib/clients/address-guard.ts";
import { discoverClient } from "../../netlify/lib/clients/discovery.ts";
import { storedFetchFailures } from "../../netlify/lib/clients/fetch-failures.ts";
import { fetchDocument, type Fetcher } from "../../netlify/lib/clients/safe-fetch.ts";
import { readConnectionLogs } from "../../netlify/lib/owner/connection-log.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { sweepExpired } from "../../netlify/lib/platform/expiry-sweep.ts";
import { approve, authorize, endpoints, postAuth, postToken, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, BASE, decodePayload, pkcePair, post } from "../helpers/requests.ts";
import { bareClient, realClock, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { expectOAuthError } from "../helpers/tokens.ts";

const TOKEN_ENDPOINT = `${BASE}/token`;
const ISSUER = `${BASE}/`;
const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const onlyLocal: AddressPolicy = (ip) => ip === "127.0.0.1";

let server: Server;
let origin = "";
let jwksHits = 0;
let servedKeys: JWK[] = [];
const documents = new Map<string, Record<string, unknown>>();
/** Paths the client's site never answers (its document "times out"). */
const stalled = new Set<string>();

let rsa: { privateKey: CryptoKey; publicJwk: JWK };
let ec: { privateKey: CryptoKey; publicJwk: JWK };
let stranger: CryptoKey;
let rt: TestRuntime;

const id = (path: string): string => `${origin}${path}`;

/** Reaches https://client.test:<port>/... over http at 127.0.0.1, reporting the asked-for URL. */
const localFetcher: Fetcher = async (url) => {
  const local = new URL(url);
  local.protocol = "http:";
  local.hostname = "127.0.0.1";
  const doc = await fetchDocument(local, { policy: onlyLocal, maxRedirects: 0 });
  return { ...doc, url: url.href };
};

async function keyPair(alg: "RS256" | "ES256", kid: string): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

beforeAll(async () => {
  rsa = await keyPair("RS256", "cimd-1");
  ec = await keyPair("ES256", "inline-1");
  stranger = (await generateKeyPair("RS256")).privateKey;
  servedKeys = [rsa.publicJwk];
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (stalled.has(path)) return;
    if (path === "/oauth/jwks.json") {
      jwksHits++;
      res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "public, max-age=600" });
      res.end(JSON.stringify({ keys: servedKeys }));
      return;
    }
    const doc = documents.get(path);
    res.writeHead(doc ? 200 : 404, { "Content-Type": "application/json" });
    res.end(JSON.stringify(doc ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `https://client.test:${(server.address() as AddressInfo).port}`;

  const chatgpt = id("/oauth/client.json");
  documents.set("/oauth/client.json", {
    client_id: chatgpt,
    client_uri: `${origin}/`,
    redirect_uris: [`${origin}/connector_platform_oauth_redirect`],
    token_endpoint_auth_method: "private_key_jwt",
    token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    client_name: "ChatGPT",
    token_endpoint_auth_signing_alg: "RS256",
    jwks_uri: id("/oauth/jwks.json"),
  });
  documents.set("/inline.json", {
    client_id: id("/inline.json"),
    client_name: "Inline keys",
    redirect_uris: [`${origin}/callback`],
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [ec.publicJwk] },
  });
  documents.set("/secret-basic.json", {
    client_id: id("/secret-basic.json"),
    redirect_uris: ["https://elsewhere.example/cb"],
    token_endpoint_auth_method: "client_secret_basic",
  });
  documents.set("/both.json", {
    client_id: id("/both.json"),
    redirect_uris: [`${origin}/cb`],
    token_endpoint_auth_method: "private_key_jwt",
    jwks: { keys: [ec.publicJwk] },
    jwks_uri: id("/oauth/jwks.json"),
  });
  documents.set("/no-keys.json", {
    client_id: id("/no-keys.json"),
    redirect_uris: [`${origin}/cb`],
    token_endpoint_auth_method: "private_key_jwt",
  });
  documents.set("/list.json", {
    client_id: id("/list.json"),
    redirect_uris: [`${origin}/cb`],
    token_endpoint_auth_method: ["private_key_jwt"],
    jwks_uri: id("/oauth/jwks.json"),
  });
  documents.set("/plural-only.json", {
    client_id: id("/plural-only.json"),
    redirect_uris: [`${origin}/cb`],
    token_endpoint_auth_methods_supported: ["private_key_jwt"],
    jwks_uri: id("/oauth/jwks.json"),
  });
  documents.set("/hs256.json", {
    client_id: id("/hs256.json"),
    redirect_uris: [`${origin}/cb`],
    token_endpoint_auth_method: "private_key_jwt",
    token_endpoint_auth_signing_alg: "HS256",
    jwks_uri: id("/oauth/jwks.json"),
  });
  documents.set("/public.json", {
    client_id: id("/public.json"),
    redirect_uris: [`${origin}/cb`],
    token_endpoint_auth_method: "none",
  });

  rt = await testRuntime({
    clock: realClock(),
    discover: (clientId) =>
      clientId.hostname === "client.test"
        ? discoverClient(clientId, { fetcher: localFetcher, cacheMs: 0 })
        : bareClient(clientId),
    fetchKeys: localFetcher,
  });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

interface Approved {
  clientId: string;
  redirectUri: string;
  callback: URL;
  verifier: string;
  code: string;
}

/** GET /auth and the approve step for a client_id: the client's callback with the code. */
async function signIn(
  path: string,
  redirectPath: string,
  runtime: TestRuntime = rt,
): Promise<Approved & { request: string }> {
  const clientId = id(path);
  const redirectUri = `${origin}${redirectPath}`;
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(
    runtime,
    authorizationParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      scope: "profile create",
    }),
  );
  const callback = new URL(
    (await approve(runtime, request, { scopes: ["profile", "create"] })).headers.get("location")!,
  );
  return { clientId, redirectUri, callback, verifier, code: callback.searchParams.get("code")!, request };
}

/** openid-client for this server, sending its token requests to the handler; it records every
 * client_assertion it sent. */
function realClient(clientId: string, auth: client.ClientAuth, sent: string[] = []): client.Configuration {
  const config = new client.Configuration(
    { issuer: ISSUER, token_endpoint: TOKEN_ENDPOINT, authorization_response_iss_parameter_supported: true },
    clientId,
    {},
    auth,
  );
  config[client.customFetch] = async (url, options) => {
    const body = new URLSearchParams(options.body as URLSearchParams);
    const assertion = body.get("client_assertion");
    if (assertion) sent.push(assertion);
    return endpoints.token(new Request(url, { method: options.method, headers: options.headers, body }), rt);
  };
  return config;
}

/** An assertion signed by hand (for the refusals no library would make). */
function assertion(
  clientId: string,
  key: CryptoKey,
  claims: { aud?: string; exp?: number; jti?: string | null; kid?: string; alg?: string } = {},
): Promise<string> {
  const now = Math.floor(rt.now() / 1000);
  const jwt = new SignJWT(claims.jti === null ? {} : { jti: claims.jti ?? crypto.randomUUID() })
    .setProtectedHeader({ alg: claims.alg ?? "RS256", kid: claims.kid ?? "cimd-1" })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(claims.aud ?? TOKEN_ENDPOINT)
    .setIssuedAt(now)
    .setExpirationTime(claims.exp ?? now + 60);
  return jwt.sign(key);
}

function codeFields(approved: Approved, extra: Record<string, string> = {}): Record<string, string> {
  return {
    grant_type: "authorization_code",
    code: approved.code,
    client_id: approved.clientId,
    redirect_uri: approved.redirectUri,
    code_verifier: approved.verifier,
    ...extra,
  };
}

async function refusedAsClient(response: Response, words: string): Promise<void> {
  const body = (await response.clone().json()) as { error_description: string };
  await expectOAuthError(response, 401, "invalid_client");
  // No Authorization header was sent, so no challenge comes back (RFC 6749 5.2).
  expect(response.headers.get("www-authenticate")).toBeNull();
  expect(body.error_description).toContain(words);
}

describe("the metadata advertises private_key_jwt beside none", () => {
  it("lists both methods, the asymmetric algorithms, and Client ID Metadata Documents", async () => {
    const metadata = (await (
      await endpoints.metadata(new Request(`${BASE}/.well-known/oauth-authorization-server`), rt)
    ).json()) as Record<string, unknown>;
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(["none", "private_key_jwt"]);
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual(["RS256", "PS256", "ES256", "EdDSA"]);
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });
});

describe("ChatGPT's document (private_key_jwt, jwks_uri, aud = the token endpoint)", () => {
  it("is used, not refused: the sign-in shows its name and signs its key source into the request", async () => {
    const { challenge } = pkcePair();
    const request = await signedRequest(
      rt,
      authorizationParams({
        client_id: id("/oauth/client.json"),
        redirect_uri: `${origin}/connector_platform_oauth_redirect`,
        code_challenge: challenge,
      }),
    );
    const payload = decodePayload(request);
    expect(payload.client).toMatchObject({ name: "ChatGPT" });
    expect(payload.authentication).toEqual({
      method: "private_key_jwt",
      keys: { jwksUri: id("/oauth/jwks.json") },
      alg: "RS256",
    });
    // A redirect on its origin that the document does not list is refused now that it is read.
    const other = await authorize(
      rt,
      authorizationParams({
        client_id: id("/oauth/client.json"),
        redirect_uri: `${origin}/elsewhere`,
        code_challenge: challenge,
      }),
    );
    expect(other.status).toBe(400);
  });

  it("is held to private_key_jwt for a client_id spelled otherwise than its document (the code is for the same client_id)", async () => {
    const { challenge } = pkcePair();
    const shouted = id("/oauth/client.json").replace("client.test", "CLIENT.test");
    const request = await signedRequest(
      rt,
      authorizationParams({
        client_id: shouted,
        redirect_uri: `${origin}/connector_platform_oauth_redirect`,
        code_challenge: challenge,
      }),
    );
    expect(decodePayload(request).clientId).toBe(id("/oauth/client.json"));
    expect(decodePayload(request).authentication).toMatchObject({ method: "private_key_jwt" });
  });

  it("redeems the code and refreshes with openid-client's PrivateKeyJwt, the keys fetched once", async () => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    const sent: string[] = [];
    const auth = client.PrivateKeyJwt(
      { key: rsa.privateKey, kid: "cimd-1" },
      { [client.modifyAssertion]: (_header, payload) => void (payload.aud = TOKEN_ENDPOINT) },
    );
    const config = realClient(approved.clientId, auth, sent);
    const hitsBefore = jwksHits;
    const tokens = await client.authorizationCodeGrant(config, approved.callback, {
      pkceCodeVerifier: approved.verifier,
      expectedState: "state-123",
    });
    expect(tokens.access_token).toMatch(/\S/);
    expect(decodePayload(sent[0]!)).toMatchObject({
      iss: approved.clientId,
      sub: approved.clientId,
      aud: TOKEN_ENDPOINT,
    });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(sent).toHaveLength(2);
    expect(jwksHits - hitsBefore).toBeLessThanOrEqual(1);

    // The same assertion again (same jti) is refused, even for a valid refresh token.
    const replay = await postToken(rt, {
      grant_type: "refresh_token",
      refresh_token: refreshed.refresh_token!,
      client_id: approved.clientId,
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: sent[1]!,
    });
    await refusedAsClient(replay, "used before");
  });

  it("refuses a token request without an assertion, and the code stays good for the real client", async () => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    await refusedAsClient(await postToken(rt, codeFields(approved)), "private_key_jwt");
    await refusedAsClient(
      await postToken(rt, codeFields(approved, { client_assertion_type: ASSERTION_TYPE })),
      "send a client_assertion",
    );
    const good = await postToken(
      rt,
      codeFields(approved, {
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(approved.clientId, rsa.privateKey),
      }),
    );
    expect(good.status).toBe(200);
    const { refresh_token } = (await good.json()) as { refresh_token: string };
    // A refresh without the assertion is refused too.
    await refusedAsClient(
      await postToken(rt, { grant_type: "refresh_token", refresh_token, client_id: approved.clientId }),
      "private_key_jwt",
    );
  });

  it("holds a profile redemption at POST /auth to the same assertion, and the code stays good", async () => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    const { grant_type: _grantType, ...fields } = codeFields(approved);
    await refusedAsClient(await postAuth(rt, fields), "private_key_jwt");
    const signed = await assertion(approved.clientId, rsa.privateKey, { aud: `${BASE}/auth` });
    const good = await postAuth(rt, { ...fields, client_assertion_type: ASSERTION_TYPE, client_assertion: signed });
    expect(good.status).toBe(200);
    expect(((await good.json()) as { me: string }).me).toBe("https://jane.example/");
  });

  it("challenges with Basic (RFC 6749 5.2) when the refused request came with Basic credentials", async () => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    const basic = `Basic ${Buffer.from(`${encodeURIComponent(approved.clientId)}:`).toString("base64")}`;
    const response = await postToken(rt, codeFields(approved), { Authorization: basic });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Basic /);
  });

  it("lets one of two requests sent at once with the same assertion through, never both", async () => {
    const [first, second] = await Promise.all([
      signIn("/oauth/client.json", "/connector_platform_oauth_redirect"),
      signIn("/oauth/client.json", "/connector_platform_oauth_redirect"),
    ]);
    const shared = await assertion(first.clientId, rsa.privateKey);
    const answers = await Promise.all(
      [first, second].map((approved) =>
        postToken(rt, codeFields(approved, { client_assertion_type: ASSERTION_TYPE, client_assertion: shared })),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
  });

  it.each([
    ["a key it does not publish", () => assertion(id("/oauth/client.json"), stranger), "signature"],
    [
      "another audience",
      () => assertion(id("/oauth/client.json"), rsa.privateKey, { aud: "https://other.example/token" }),
      "aud",
    ],
    [
      "an expired assertion",
      () => assertion(id("/oauth/client.json"), rsa.privateKey, { exp: Math.floor(rt.now() / 1000) - 120 }),
      "expired",
    ],
    [
      "an hour-long assertion",
      () => assertion(id("/oauth/client.json"), rsa.privateKey, { exp: Math.floor(rt.now() / 1000) + 3600 }),
      "too far ahead",
    ],
    ["no jti", () => assertion(id("/oauth/client.json"), rsa.privateKey, { jti: null }), "jti"],
    ["another client's iss", () => assertion(id("/inline.json"), rsa.privateKey), "iss"],
  ])("refuses %s, and consumes nothing", async (_name, make, words) => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    await refusedAsClient(
      await postToken(
        rt,
        codeFields(approved, { client_assertion_type: ASSERTION_TYPE, client_assertion: await make() }),
      ),
      words,
    );
    const good = await postToken(
      rt,
      codeFields(approved, {
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(approved.clientId, rsa.privateKey),
      }),
    );
    expect(good.status).toBe(200);
  });

  it("refuses HS256 (openid-client's ClientSecretJwt), whatever the secret", async () => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    const config = realClient(approved.clientId, client.ClientSecretJwt("a-shared-secret-nobody-should-have"));
    const error = await client
      .authorizationCodeGrant(config, approved.callback, {
        pkceCodeVerifier: approved.verifier,
        expectedState: "state-123",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    expect((error as client.ResponseBodyError).error).toBe("invalid_client");
    expect((error as client.ResponseBodyError).status).toBe(401);
  });

  it("fetches the keys again, once, for a key it has not seen (a rotation)", async () => {
    const rotated = await keyPair("RS256", "cimd-2");
    servedKeys = [rsa.publicJwk, rotated.publicJwk];
    try {
      const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
      const before = jwksHits;
      const good = await postToken(
        rt,
        codeFields(approved, {
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertion(approved.clientId, rotated.privateKey, { kid: "cimd-2" }),
        }),
      );
      expect(good.status).toBe(200);
      expect(jwksHits - before).toBe(1);
      // An unknown kid fetches once per request, not in a loop.
      const next = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
      const unknown = await postToken(
        rt,
        codeFields(next, {
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertion(next.clientId, stranger, { kid: "cimd-9" }),
        }),
      );
      await refusedAsClient(unknown, "no key");
      expect(jwksHits - before).toBe(2);
    } finally {
      servedKeys = [rsa.publicJwk];
    }
  });

  it("keeps used jti records (hashed) until the assertion expires, and housekeeping sweeps them", async () => {
    const used = await rt.store.list(RECORDS.usedAssertion.prefix);
    expect(used.length).toBeGreaterThan(0);
    expect(used.join(" ")).not.toContain("client.test");
    rt.clock.advance(10 * 60 * 1000);
    try {
      await sweepExpired(rt.store, rt.now());
      expect(await rt.store.list(RECORDS.usedAssertion.prefix)).toEqual([]);
    } finally {
      // openid-client signs with the wall clock: the tests after this one need it back.
      rt.clock.advance(-10 * 60 * 1000);
    }
  });
});

describe("keys that cannot be fetched", () => {
  it("are refused in words that name no address and no system error (a refused connection here)", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadKeys = `https://client.test:${(closed.address() as AddressInfo).port}/oauth/jwks.json`;
    await new Promise((resolve) => closed.close(resolve));
    documents.set("/dead-keys.json", {
      client_id: id("/dead-keys.json"),
      redirect_uris: [`${origin}/cb`],
      token_endpoint_auth_method: "private_key_jwt",
      jwks_uri: deadKeys,
    });
    const approved = await signIn("/dead-keys.json", "/cb");
    const refused = await postToken(
      rt,
      codeFields(approved, {
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(approved.clientId, rsa.privateKey),
      }),
    );
    const text = await refused.clone().text();
    await refusedAsClient(refused, "its jwks_uri could not be fetched (it could not be reached)");
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect/);
  });
});

describe("a document with inline jwks (ES256, aud = the issuer, as openid-client sends it)", () => {
  it("redeems and refreshes with openid-client's PrivateKeyJwt", async () => {
    const approved = await signIn("/inline.json", "/callback");
    const config = realClient(approved.clientId, client.PrivateKeyJwt({ key: ec.privateKey, kid: "inline-1" }));
    const tokens = await client.authorizationCodeGrant(config, approved.callback, {
      pkceCodeVerifier: approved.verifier,
      expectedState: "state-123",
    });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toMatch(/\S/);
  });
});

describe("revocation (RFC 7009 2.1; CIMD draft 8.2: every exchange of such a client carries its assertion)", () => {
  /** openid-client, its revocations sent to POST /revoke and its token requests to /token. */
  function revokingClient(clientId: string, auth: client.ClientAuth): client.Configuration {
    const config = new client.Configuration(
      { issuer: ISSUER, token_endpoint: TOKEN_ENDPOINT, revocation_endpoint: `${BASE}/revoke` },
      clientId,
      {},
      auth,
    );
    config[client.customFetch] = async (url, options) => {
      const request = new Request(url, {
        method: options.method,
        headers: options.headers,
        body: new URLSearchParams(options.body as URLSearchParams),
      });
      return new URL(url).pathname === "/revoke" ? endpoints.revoke(request, rt) : endpoints.token(request, rt);
    };
    return config;
  }

  const active = async (token: string) =>
    (
      (await (
        await endpoints.introspect(
          new Request(`${BASE}/introspect`, { method: "POST", headers: { Authorization: `Bearer ${token}` } }),
          rt,
        )
      ).json()) as { active: boolean }
    ).active;

  it("revokes with openid-client's PrivateKeyJwt (aud the issuer), never with the token alone, a stranger's key, or at action=revoke without it", async () => {
    const approved = await signIn("/inline.json", "/callback");
    const config = revokingClient(approved.clientId, client.PrivateKeyJwt({ key: ec.privateKey, kid: "inline-1" }));
    const tokens = await client.authorizationCodeGrant(config, approved.callback, {
      pkceCodeVerifier: approved.verifier,
      expectedState: "state-123",
    });
    // IndieAuth's request (spec 7.1: the token alone), and with the client_id: the client's key is required.
    await refusedAsClient(
      await endpoints.revoke(post("/revoke", { token: tokens.access_token }), rt),
      "private_key_jwt",
    );
    await refusedAsClient(
      await endpoints.revoke(post("/revoke", { token: tokens.refresh_token!, client_id: approved.clientId }), rt),
      "private_key_jwt",
    );
    const byStranger = {
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(approved.clientId, stranger, { aud: `${BASE}/revoke` }),
    };
    await refusedAsClient(
      await endpoints.revoke(
        post("/revoke", { token: tokens.access_token, client_id: approved.clientId, ...byStranger }),
        rt,
      ),
      "refused",
    );
    await refusedAsClient(
      await postToken(rt, { action: "revoke", token: tokens.access_token, client_id: approved.clientId }),
      "private_key_jwt",
    );
    expect(await active(tokens.access_token)).toBe(true);

    await client.tokenRevocation(config, tokens.refresh_token!);
    expect(await active(tokens.access_token)).toBe(false);
  });

  it("takes an assertion addressed to /revoke itself (ChatGPT's keys), once", async () => {
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect");
    const tokens = (await (
      await postToken(
        rt,
        codeFields(approved, {
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertion(approved.clientId, rsa.privateKey),
        }),
      )
    ).json()) as { access_token: string };
    const signed = {
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(approved.clientId, rsa.privateKey, { aud: `${BASE}/revoke` }),
    };
    const revoked = await endpoints.revoke(post("/revoke", { token: tokens.access_token, ...signed }), rt);
    expect(revoked.status).toBe(200);
    expect(await active(tokens.access_token)).toBe(false);
    // The same assertion again is a failed authentication, whatever the token has become.
    await refusedAsClient(
      await endpoints.revoke(post("/revoke", { token: tokens.access_token, ...signed }), rt),
      "used before",
    );
  });
});

describe("a public client (none)", () => {
  it("is refused when it sends an assertion its document does not declare", async () => {
    const approved = await signIn("/public.json", "/cb");
    await refusedAsClient(
      await postToken(
        rt,
        codeFields(approved, {
          client_assertion_type: ASSERTION_TYPE,
          client_assertion: await assertion(approved.clientId, rsa.privateKey),
        }),
      ),
      "declares no private_key_jwt",
    );
    expect((await postToken(rt, codeFields(approved))).status).toBe(200);
  });
});

describe("documents refused at discovery, with a readable reason", () => {
  it.each([
    ["/secret-basic.json", "client_secret_basic needs a shared secret"],
    ["/both.json", "both jwks and jwks_uri"],
    ["/no-keys.json", "publishes no keys"],
    ["/list.json", "not one name"],
    ["/plural-only.json", "ambiguous"],
    ["/hs256.json", "token_endpoint_auth_signing_alg"],
  ])("%s", async (path, reason) => {
    const info = await discoverClient(new URL(id(path)), { fetcher: localFetcher, cacheMs: 0 });
    expect(info.refused).toContain(reason);
    expect(info.authentication).toBeUndefined();
  });

  it.each([
    ["/secret-basic.json", "https://elsewhere.example/cb", "needs a shared secret"],
    // On the client_id's own origin too: it is not let in as a public client instead.
    ["/secret-basic.json", "/cb", "needs a shared secret"],
    ["/no-keys.json", "/cb", "publishes no keys"],
  ])("stops the sign-in for %s (redirect %s) and says why on the page", async (path, redirect, reason) => {
    const { challenge } = pkcePair();
    const redirectUri = redirect.startsWith("/") ? `${origin}${redirect}` : redirect;
    const response = await authorize(
      rt,
      authorizationParams({ client_id: id(path), redirect_uri: redirectUri, code_challenge: challenge }),
    );
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain("The app&#39;s metadata document was not used");
    expect(page).toContain(reason);
  });
});

describe("a document that could not be read never makes its client weaker (ChatGPT at a local stand-in)", () => {
  let remembering: TestRuntime;
  /** Discovery as the auth function runs it: failures remembered in the store, and a page that
   * never answers given a tenth of the budget (150 ms for its headers, not 1.5 s). */
  const budgeted: Fetcher = async (url, budget) => {
    const local = Object.assign(new URL(url), { protocol: "http:", hostname: "127.0.0.1" });
    const scaled =
      budget && stalled.has(url.pathname)
        ? { headersTimeoutMs: budget.headersTimeoutMs / 10, timeoutMs: budget.timeoutMs / 10 }
        : budget;
    const doc = await fetchDocument(local, { policy: onlyLocal, maxRedirects: 0, ...scaled });
    return { ...doc, url: url.href };
  };

  beforeAll(async () => {
    remembering = await testRuntime({
      clock: realClock(),
      discover: (clientId, store, options) =>
        discoverClient(clientId, {
          fetcher: budgeted,
          cacheMs: 0,
          ...(options?.atRedemption === true ? {} : { failures: storedFetchFailures(store) }),
        }),
      fetchKeys: localFetcher,
    });
  });
  afterEach(() => stalled.clear());

  const signed = async (approved: Approved) => ({
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: await assertion(approved.clientId, rsa.privateKey),
  });

  it("a 404 and a page that never answers, of other client_ids on its origin, leave ChatGPT's private_key_jwt required", async () => {
    stalled.add("/never-answers");
    for (const path of ["/does-not-exist", "/never-answers"]) {
      const { challenge } = pkcePair();
      const anonymous = await authorize(
        remembering,
        authorizationParams({
          client_id: id(path),
          redirect_uri: `${origin}/connector_platform_oauth_redirect`,
          code_challenge: challenge,
        }),
      );
      expect(anonymous.status).toBe(303);
    }
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect", remembering);
    expect(decodePayload(approved.request).authentication).toMatchObject({ method: "private_key_jwt" });
    await refusedAsClient(await postToken(remembering, codeFields(approved)), "private_key_jwt");
    const good = await postToken(remembering, codeFields(approved, await signed(approved)));
    expect(good.status).toBe(200);
    const { refresh_token } = (await good.json()) as { refresh_token: string };
    await refusedAsClient(
      await postToken(remembering, { grant_type: "refresh_token", refresh_token, client_id: approved.clientId }),
      "private_key_jwt",
    );
  });

  it("its document timing out at sign-in: the code needs the assertion its document declares when /token reads it, and so does every refresh", async () => {
    stalled.add("/oauth/client.json");
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect", remembering);
    const request = decodePayload(approved.request);
    expect(request.documentUnread).toBe(true);
    expect(request.authentication).toBeUndefined();
    // The owner's console says so (the connection log is written after the answer).
    await expect
      .poll(
        async () =>
          (await readConnectionLogs(remembering.store, remembering.now()))
            .find((log) => log.clientId === approved.clientId)
            ?.attempts[0]?.steps.find((step) => step.step === "document"),
        { timeout: 10_000 },
      )
      .toMatchObject({ ok: false, detail: expect.stringContaining("could not be read just now") });
    stalled.clear();
    await refusedAsClient(await postToken(remembering, codeFields(approved)), "private_key_jwt");
    const { grant_type: _grantType, ...profileFields } = codeFields(approved);
    await refusedAsClient(await postAuth(remembering, profileFields), "private_key_jwt");
    // Nothing was used up: the genuine client, with its assertion, redeems the code.
    const good = await postToken(remembering, codeFields(approved, await signed(approved)));
    expect(good.status).toBe(200);
    const { refresh_token } = (await good.json()) as { refresh_token: string };
    await refusedAsClient(
      await postToken(remembering, { grant_type: "refresh_token", refresh_token, client_id: approved.clientId }),
      "private_key_jwt",
    );
    const refreshed = await postToken(remembering, {
      grant_type: "refresh_token",
      refresh_token,
      client_id: approved.clientId,
      ...(await signed(approved)),
    });
    expect(refreshed.status).toBe(200);
  });

  it("its document naming another client_id when /token reads it: the redemption is refused, as the sign-in would have been (CIMD draft 4, 5.1)", async () => {
    documents.set("/copied.json", {
      client_id: id("/copied.json"),
      redirect_uris: [`${origin}/cb`],
      token_endpoint_auth_method: "none",
    });
    stalled.add("/copied.json");
    const approved = await signIn("/copied.json", "/cb", remembering);
    expect(decodePayload(approved.request).documentUnread).toBe(true);
    stalled.clear();
    documents.set("/copied.json", {
      client_id: id("/oauth/client.json"),
      redirect_uris: [`${origin}/cb`],
      token_endpoint_auth_method: "none",
    });
    await refusedAsClient(await postToken(remembering, codeFields(approved)), "names another client_id");
  });

  it("its document unreadable at sign-in and at /token: the redemption is refused, and nothing is used up", async () => {
    stalled.add("/oauth/client.json");
    const approved = await signIn("/oauth/client.json", "/connector_platform_oauth_redirect", remembering);
    await refusedAsClient(
      await postToken(remembering, codeFields(approved, await signed(approved))),
      "could not be read",
    );
    await refusedAsClient(await postToken(remembering, codeFields(approved)), "could not be read");
    stalled.clear();
    expect((await postToken(remembering, codeFields(approved, await signed(approved)))).status).toBe(200);
  });
});

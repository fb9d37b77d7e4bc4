// The resource-server API (netlify-indieauth/resource) in-process: same-site mode against the
// real local Blobs server, with the store and clock of a test runtime whose tokens come from
// real sign-ins through the handlers; other-site mode against this server's real POST
// /introspect handler served over local HTTP, on the same injected clock.
import { afterEach, describe, expect, it } from "vitest";
import { appIdOf } from "../../netlify/lib/protocol/revocations.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { resourceServer, ResourceSetupError, TokenCheckUnavailable, type ActiveToken, type ResourceServer } from "../../netlify/lib/resource/index.ts";
import { approve, endpoints, introspect, postToken, revoke, signedRequest, signInForCode } from "../helpers/endpoints.ts";
import { startFaultyBlobs } from "../helpers/faulty-blobs.ts";
import { serveHandler, type HandlerServer } from "../helpers/handler-server.ts";
import { OperationCounter } from "../helpers/counting-store.ts";
import { authorizationParams, CLIENT_ID, codeForm, pkcePair, redirectParams, refreshForm } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { tokensFor } from "../helpers/tokens.ts";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const SITE = "https://jane.example";
const MICROPUB = `${SITE}/micropub`;
const CREDENTIAL = "c".repeat(40);
const UNKNOWN = `iat_${"A".repeat(22)}.${"B".repeat(43)}`;

/** The API on the runtime's own store and clock: a function on the server's site. */
function sameSite(rt: TestRuntime, env: Record<string, string> = {}): ResourceServer {
  return resourceServer({ env, store: rt.store, now: () => rt.clock.now });
}

const get = (headers: Record<string, string> = {}, url = MICROPUB) => new Request(url, { headers });
const bearer = (token: string, url = MICROPUB) => get({ Authorization: `Bearer ${token}` }, url);
const form = (fields: Record<string, string>, url = MICROPUB) => new Request(url, { method: "POST", body: new URLSearchParams(fields) });

/** A refusal with this status and error code; `null`: the bare challenge of a request without
 * a token, whose body is empty (RFC 6750 3.1: no error information). */
async function expectRefusal(answer: ActiveToken | Response, status: number, error: string | null): Promise<Response> {
  expect(answer).toBeInstanceOf(Response);
  const response = answer as Response;
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.clone().json()) as { error?: string };
  if (error === null) expect(body).toEqual({});
  else expect(body.error).toBe(error);
  return response;
}

/** A real sign-in for a resource (RFC 8707: `resource` at /auth, kept at /token). */
async function tokensForResource(rt: TestRuntime, resource: string): Promise<{ access_token: string }> {
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, resource }));
  const code = redirectParams(await approve(rt, request, { scopes: ["profile", "create"] })).get("code")!;
  const response = await postToken(rt, codeForm({ code, verifier }));
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string };
}

describe("same site: verifyAccessToken reads the grant, with the rules of /introspect", () => {
  it("answers a live token with me, clientId, scope and exp, as /introspect does, in one round trip (the grant and the revocations)", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const counter = new OperationCounter();
    const api = resourceServer({ env: {}, store: counter.wrap(rt.store), now: () => rt.clock.now });
    const answer = await api.verifyAccessToken(access_token);
    expect(counter.snapshot()).toEqual({ reads: 2, writes: 0, deletes: 0, lists: 0 });
    const introspected = (await (await introspect(rt, access_token)).json()) as Record<string, unknown>;
    expect(answer).toEqual({ active: true, me: introspected.me, clientId: introspected.client_id, scope: introspected.scope, exp: introspected.exp });
    expect(answer).toEqual({ active: true, me: "https://jane.example/", clientId: CLIENT_ID, scope: "profile email create", exp: expect.any(Number) });
  });

  it("marks the use as /introspect does: the app's usage record, at most every five minutes", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    rt.clock.advance(6 * MINUTE);
    expect((await sameSite(rt).verifyAccessToken(access_token)).active).toBe(true);
    const grant = await rt.store.get<{ clientId: string }>(RECORDS.grant.key(access_token.slice(4, 26)));
    const usage = await rt.store.get<{ lastUsedAt: number }>(RECORDS.appUsage.key(appIdOf(grant!.clientId)));
    expect(usage?.lastUsedAt).toBe(rt.clock.now);
  });

  it("gives each reason a token is inactive, and /introspect agrees that each is inactive", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const first = await tokensFor(rt);
    const refreshed = await postToken(rt, refreshForm(first.refresh_token));
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as { access_token: string; refresh_token: string };
    const revokedTokens = await tokensFor(rt);
    expect((await revoke(rt, { token: revokedTokens.access_token })).status).toBe(200);
    const { code } = await signInForCode(rt);

    const cases: [string, string][] = [
      ["malformed", "not-a-token"],
      ["malformed", `${second.access_token}x`],
      ["refresh-token", second.refresh_token],
      ["code", code],
      ["unknown", UNKNOWN],
      // An access token replaced by a refresh is no longer the grant's.
      ["unknown", first.access_token],
      // The right grant, the wrong secret: nothing is said about the grant.
      ["unknown", `${revokedTokens.access_token.slice(0, 27)}${"x".repeat(43)}`],
      ["revoked", revokedTokens.access_token],
    ];
    for (const [reason, token] of cases) {
      expect({ token, answer: await api.verifyAccessToken(token) }).toEqual({ token, answer: { active: false, reason } });
      expect(await (await introspect(rt, token)).json()).toEqual({ active: false });
    }
    expect((await api.verifyAccessToken(second.access_token)).active).toBe(true);

    rt.clock.advance(31 * DAY);
    expect(await api.verifyAccessToken(second.access_token)).toEqual({ active: false, reason: "expired" });
    expect(await (await introspect(rt, second.access_token)).json()).toEqual({ active: false });
  });

  it("reads the token of a request from the Authorization header or a form body, and says when there is none", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const { access_token } = await tokensFor(rt);
    expect((await api.verifyAccessToken(bearer(access_token))).active).toBe(true);
    expect((await api.verifyAccessToken(form({ h: "entry", access_token }))).active).toBe(true);
    expect(await api.verifyAccessToken(get())).toEqual({ active: false, reason: "missing" });
    expect(await api.verifyAccessToken(form({ h: "entry" }))).toEqual({ active: false, reason: "missing" });
    expect(await api.verifyAccessToken(get({ Authorization: "Basic dXNlcjpwYXNz" }))).toEqual({ active: false, reason: "malformed" });
    expect(await api.verifyAccessToken(get({}, `${MICROPUB}?access_token=${access_token}`))).toEqual({ active: false, reason: "invalid-request" });
  });

  it("includes the resource a token was issued for as aud, as /introspect does, and refuses it for another resource", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const unbound = await tokensFor(rt);
    expect(await api.verifyAccessToken(unbound.access_token, { resource: MICROPUB })).not.toHaveProperty("aud");
    expect((await api.verifyAccessToken(unbound.access_token, { resource: MICROPUB })).active).toBe(true);

    const { access_token } = await tokensForResource(rt, `${SITE}/mcp`);
    expect(await api.verifyAccessToken(access_token)).toMatchObject({ active: true, aud: `${SITE}/mcp` });
    expect(((await (await introspect(rt, access_token)).json()) as { aud: string }).aud).toBe(`${SITE}/mcp`);
    expect(await api.verifyAccessToken(access_token, { resource: `${SITE}/mcp` })).toMatchObject({ active: true });
    expect(await api.verifyAccessToken(access_token, { resource: MICROPUB })).toEqual({ active: false, reason: "wrong-resource" });
    // A path is taken against the request's own origin.
    expect(await api.verifyAccessToken(bearer(access_token), { resource: "/micropub" })).toEqual({ active: false, reason: "wrong-resource" });
    expect(await api.verifyAccessToken(bearer(access_token, `${SITE}/mcp`), { resource: "/mcp" })).toMatchObject({ active: true, aud: `${SITE}/mcp` });
  });

  it("throws TokenCheckUnavailable when the store does not answer, rather than calling the token inactive", async () => {
    const faulty = await startFaultyBlobs();
    try {
      const rt = await testRuntime();
      const { access_token } = await tokensFor(rt);
      faulty.mode = "down";
      const api = resourceServer({ env: {}, store: blobStore(rt.storeName, { connection: faulty.connection, deadlineMs: 500 }), now: () => rt.clock.now });
      await expect(api.verifyAccessToken(access_token)).rejects.toBeInstanceOf(TokenCheckUnavailable);
      const response = await expectRefusal(await api.requireToken(bearer(access_token)), 503, "temporarily_unavailable");
      expect(response.headers.get("retry-after")).toBe("30");
    } finally {
      await faulty.close();
    }
  });
});

describe("requireToken: the token, or a ready RFC 6750 answer", () => {
  it("gives the verified token to a request that carries one with the scope it needs", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const answer = await sameSite(rt).requireToken(bearer(access_token), { scope: "create" });
    expect(answer).toMatchObject({ active: true, me: "https://jane.example/", clientId: CLIENT_ID, scope: "profile email create" });
    expect(await sameSite(rt).requireToken(bearer(access_token), { scope: ["create", "profile"] })).toMatchObject({ active: true });
    expect(await sameSite(rt).requireToken(bearer(access_token), { scope: "create profile" })).toMatchObject({ active: true });
  });

  it("answers 401 without any error information when there is no token, with the resource's metadata when it is named", async () => {
    const rt = await testRuntime();
    const plain = await expectRefusal(await sameSite(rt).requireToken(get()), 401, null);
    expect(plain.headers.get("www-authenticate")).toBe('Bearer realm="indieauth"');
    const named = await expectRefusal(await sameSite(rt).requireToken(get(), { resource: "/micropub" }), 401, null);
    expect(named.headers.get("www-authenticate")).toBe(`Bearer realm="indieauth", resource_metadata="${SITE}/.well-known/oauth-protected-resource/micropub"`);
  });

  it("answers 401 invalid_token for a revoked, unknown or malformed token, the same words for each", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const { access_token } = await tokensFor(rt);
    await revoke(rt, { token: access_token });
    const descriptions = new Set<string>();
    for (const request of [bearer(access_token), bearer(UNKNOWN), bearer("x")]) {
      const response = await expectRefusal(await api.requireToken(request, { resource: "/micropub" }), 401, "invalid_token");
      const challenge = response.headers.get("www-authenticate")!;
      expect(challenge).toMatch(/^Bearer realm="indieauth", error="invalid_token", error_description="[^"]+", resource_metadata="https:\/\/jane\.example\/\.well-known\/oauth-protected-resource\/micropub"$/);
      descriptions.add(challenge);
    }
    expect(descriptions.size).toBe(1);
    await expectRefusal(await api.requireToken(get({ Authorization: "Basic dXNlcjpwYXNz" })), 401, "invalid_token");
  });

  it("names the scope it needs in a 401 too, so that a client can ask for it", async () => {
    const rt = await testRuntime();
    const response = await expectRefusal(await sameSite(rt).requireToken(get(), { scope: ["create", "media"], resource: "/micropub" }), 401, null);
    expect(response.headers.get("www-authenticate")).toBe(`Bearer realm="indieauth", scope="create media", resource_metadata="${SITE}/.well-known/oauth-protected-resource/micropub"`);
  });

  it("with requireAudience, refuses a token issued for no resource, as an MCP server must", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const unbound = await tokensFor(rt);
    const mcp = (token: string) => bearer(token, `${SITE}/mcp`);
    expect(await api.requireToken(mcp(unbound.access_token), { resource: "/mcp" })).toMatchObject({ active: true });
    const refused = await expectRefusal(await api.requireToken(mcp(unbound.access_token), { resource: "/mcp", requireAudience: true }), 401, "invalid_token");
    expect(refused.headers.get("www-authenticate")).toContain("not issued for this resource");
    expect(await api.verifyAccessToken(unbound.access_token, { resource: `${SITE}/mcp`, requireAudience: true })).toEqual({ active: false, reason: "wrong-resource" });
    const bound = await tokensForResource(rt, `${SITE}/mcp`);
    expect(await api.requireToken(mcp(bound.access_token), { resource: "/mcp", requireAudience: true, scope: "create" })).toMatchObject({ active: true, aud: `${SITE}/mcp` });
    await expect(api.requireToken(mcp(bound.access_token), { requireAudience: true })).rejects.toBeInstanceOf(TypeError);
  });

  it("answers 403 insufficient_scope naming the scope the request needs", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt, "profile");
    const response = await expectRefusal(await sameSite(rt).requireToken(bearer(access_token), { scope: "create" }), 403, "insufficient_scope");
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="indieauth", error="insufficient_scope", scope="create", /);
    const both = await expectRefusal(await sameSite(rt).requireToken(bearer(access_token), { scope: ["create", "media"] }), 403, "insufficient_scope");
    expect(both.headers.get("www-authenticate")).toContain('scope="create media"');
  });

  it("accepts access_token in an urlencoded or multipart body, and leaves the body for the function to read", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const { access_token } = await tokensFor(rt);
    const urlencoded = form({ h: "entry", content: "Hello", access_token });
    expect(await api.requireToken(urlencoded, { scope: "create" })).toMatchObject({ active: true });
    expect((await urlencoded.formData()).get("content")).toBe("Hello");

    const body = new FormData();
    body.set("h", "entry");
    body.set("content", "With a photo");
    body.set("photo", new Blob([new Uint8Array([1, 2, 3])], { type: "image/png" }), "photo.png");
    body.set("access_token", access_token);
    const multipart = new Request(MICROPUB, { method: "POST", body });
    expect(await api.requireToken(multipart, { scope: "create" })).toMatchObject({ active: true });
    expect((await multipart.formData()).get("content")).toBe("With a photo");

    // JSON bodies carry the token in the header only (Micropub 3.8).
    const json = new Request(MICROPUB, { method: "POST", body: JSON.stringify({ access_token }), headers: { "Content-Type": "application/json" } });
    await expectRefusal(await api.requireToken(json), 401, null);
  });

  it("refuses a token in the URL with 400, since URLs are logged", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    await expectRefusal(await sameSite(rt).requireToken(get({}, `${MICROPUB}?q=config&access_token=${access_token}`)), 400, "invalid_request");
  });

  it("answers 401 invalid_token for a token issued for another resource", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensForResource(rt, `${SITE}/mcp`);
    const response = await expectRefusal(await sameSite(rt).requireToken(bearer(access_token), { resource: "/micropub" }), 401, "invalid_token");
    expect(response.headers.get("www-authenticate")).toContain("not issued for this resource");
    expect(await sameSite(rt).requireToken(bearer(access_token, `${SITE}/mcp`), { resource: "/mcp" })).toMatchObject({ active: true, aud: `${SITE}/mcp` });
  });

  it("answers 500 naming the variable when other-site mode is half set up", async () => {
    const api = resourceServer({ env: { INDIEAUTH_SERVER: "https://auth.jane.example" } });
    const response = await expectRefusal(await api.requireToken(bearer(UNKNOWN)), 500, "server_error");
    expect(((await response.json()) as { error_description: string }).error_description).toContain("INTROSPECTION_TOKEN");
    await expect(api.verifyAccessToken(UNKNOWN)).rejects.toBeInstanceOf(ResourceSetupError);
  });
});

describe("protected resource metadata (RFC 9728)", () => {
  const resources = [
    { resource: "/micropub", scopes: ["create", "update"], name: "Micropub" },
    { resource: "/mcp", scopes: ["read"] },
  ];

  it("names this server as the authorization server", () => {
    const api = resourceServer({ env: { URL: SITE } });
    expect(api.protectedResourceMetadata({ resource: "/micropub", scopes: ["create"] })).toEqual({
      resource: MICROPUB,
      authorization_servers: [`${SITE}/`],
      scopes_supported: ["create"],
      bearer_methods_supported: ["header", "body"],
    });
    const other = resourceServer({ env: { INDIEAUTH_SERVER: "https://auth.jane.example", INTROSPECTION_TOKEN: CREDENTIAL } });
    expect(other.protectedResourceMetadata({ resource: MICROPUB }).authorization_servers).toEqual(["https://auth.jane.example/"]);
  });

  it("serves each resource's document at its path-specific well-known address, readable from any origin", async () => {
    const handler = resourceServer({ env: {} }).protectedResourceMetadataHandler([...resources, { resource: "/" }]);
    const micropub = await handler(get({}, `${SITE}/.well-known/oauth-protected-resource/micropub`));
    expect(micropub.status).toBe(200);
    expect(micropub.headers.get("access-control-allow-origin")).toBe("*");
    expect(await micropub.json()).toEqual({
      resource: MICROPUB,
      authorization_servers: [`${SITE}/`],
      scopes_supported: ["create", "update"],
      bearer_methods_supported: ["header", "body"],
      resource_name: "Micropub",
    });
    expect(await (await handler(get({}, `${SITE}/.well-known/oauth-protected-resource/mcp`))).json()).toMatchObject({ resource: `${SITE}/mcp` });
    expect(await (await handler(get({}, `${SITE}/.well-known/oauth-protected-resource`))).json()).toMatchObject({ resource: `${SITE}/` });
    expect((await handler(get({}, `${SITE}/.well-known/oauth-protected-resource/elsewhere`))).status).toBe(404);
    expect((await handler(new Request(`${SITE}/.well-known/oauth-protected-resource/mcp`, { method: "POST" }))).status).toBe(405);
    expect((await handler(new Request(`${SITE}/.well-known/oauth-protected-resource/mcp`, { method: "OPTIONS" }))).status).toBe(204);
  });
});

describe("other site: this server's /introspect with INTROSPECTION_TOKEN, answers reused for at most a minute", () => {
  let server: HandlerServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The server's real introspection handler over HTTP, and a resource server that asks it,
   * both on the runtime's clock. */
  async function otherSite(): Promise<{ rt: TestRuntime; api: ResourceServer; served: HandlerServer }> {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: CREDENTIAL } });
    server = await serveHandler((req) => endpoints.introspect(req, rt));
    const api = resourceServer({ env: { INDIEAUTH_SERVER: server.origin, INTROSPECTION_TOKEN: CREDENTIAL }, now: () => rt.clock.now });
    return { rt, api, served: server };
  }

  it("gives the same answers as the same-site mode, asking nothing for a token of the wrong kind", async () => {
    const { rt, api, served } = await otherSite();
    expect(api.mode).toBe("introspection");
    const { access_token, refresh_token } = await tokensFor(rt);
    expect(await api.verifyAccessToken(access_token)).toEqual(await sameSite(rt).verifyAccessToken(access_token));
    const bound = await tokensForResource(rt, `${SITE}/mcp`);
    expect(await api.verifyAccessToken(bound.access_token)).toEqual(await sameSite(rt).verifyAccessToken(bound.access_token));
    expect(await api.verifyAccessToken(bound.access_token)).toMatchObject({ aud: `${SITE}/mcp` });
    expect(await api.verifyAccessToken(bound.access_token, { resource: MICROPUB })).toEqual({ active: false, reason: "wrong-resource" });
    expect(await api.verifyAccessToken(UNKNOWN)).toEqual({ active: false, reason: "inactive" });
    expect(served.requests).toBe(3);
    expect(await api.verifyAccessToken(refresh_token)).toEqual({ active: false, reason: "refresh-token" });
    expect(await api.verifyAccessToken("nonsense")).toEqual({ active: false, reason: "malformed" });
    expect(served.requests).toBe(3);
  });

  it("reuses an answer for a minute at most: a revoked token is refused once the minute since it was asked is over", async () => {
    const { rt, api, served } = await otherSite();
    const { access_token } = await tokensFor(rt);
    const asked = rt.clock.now;
    expect(await api.requireToken(bearer(access_token), { scope: "create" })).toMatchObject({ active: true });
    expect(served.requests).toBe(1);

    rt.clock.advance(10_000);
    await revoke(rt, { token: access_token });
    expect(await (await introspect(rt, access_token)).json()).toEqual({ active: false });
    rt.clock.advance(49_999);
    // Still within the bound: the earlier answer, without asking.
    expect(await api.verifyAccessToken(access_token)).toMatchObject({ active: true });
    expect(served.requests).toBe(1);
    // The bound: a minute after it was asked, the answer is asked again, and refused.
    rt.clock.advance(asked + MINUTE - rt.clock.now);
    await expectRefusal(await api.requireToken(bearer(access_token)), 401, "invalid_token");
    expect(served.requests).toBe(2);
  });

  it("never reuses an answer past the token's expiry", async () => {
    const { rt, api, served } = await otherSite();
    const { access_token } = await tokensFor(rt);
    const first = (await api.verifyAccessToken(access_token)) as ActiveToken;
    rt.clock.advance(first.exp * 1000 - 10_000 - rt.clock.now);
    expect(await api.verifyAccessToken(access_token)).toMatchObject({ active: true });
    expect(served.requests).toBe(2);
    await revoke(rt, { token: access_token });
    rt.clock.advance(9_999);
    expect(await api.verifyAccessToken(access_token)).toMatchObject({ active: true });
    // Ten seconds after it was asked, not sixty: the token's own expiry ends the answer.
    rt.clock.advance(1);
    expect(await api.verifyAccessToken(access_token)).toEqual({ active: false, reason: "inactive" });
    expect(served.requests).toBe(3);
  });

  it("keeps answers apart per token, and asks once for requests carrying the same token at once", async () => {
    const { rt, api, served } = await otherSite();
    const live = await tokensFor(rt);
    const revoked = await tokensFor(rt);
    await revoke(rt, { token: revoked.access_token });
    const answers = await Promise.all([...Array.from({ length: 5 }, () => api.verifyAccessToken(live.access_token)), api.verifyAccessToken(revoked.access_token)]);
    expect(answers.map((a) => a.active)).toEqual([true, true, true, true, true, false]);
    expect(served.requests).toBe(2);
    // A caller changing its answer does not change the one kept.
    (answers[0] as ActiveToken).scope = "everything";
    expect(await api.verifyAccessToken(live.access_token)).toMatchObject({ scope: "profile email create" });
  });

  it("says so when the server refuses the credential, does not answer, or answers nonsense", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: CREDENTIAL } });
    server = await serveHandler((req) => endpoints.introspect(req, rt));
    const wrong = resourceServer({ env: { INDIEAUTH_SERVER: server.origin, INTROSPECTION_TOKEN: "w".repeat(40) } });
    await expect(wrong.verifyAccessToken(UNKNOWN)).rejects.toBeInstanceOf(ResourceSetupError);
    await expectRefusal(await wrong.requireToken(bearer(UNKNOWN)), 500, "server_error");

    const closed = `http://127.0.0.1:${new URL(server.origin).port}`;
    await server.close();
    server = undefined;
    const down = resourceServer({ env: { INDIEAUTH_SERVER: closed, INTROSPECTION_TOKEN: CREDENTIAL } });
    await expect(down.verifyAccessToken(UNKNOWN)).rejects.toBeInstanceOf(TokenCheckUnavailable);
    const unavailable = await expectRefusal(await down.requireToken(bearer(UNKNOWN)), 503, "temporarily_unavailable");
    expect(unavailable.headers.get("retry-after")).toBe("30");

    server = await serveHandler(async () => Response.json({ active: "true", me: "https://jane.example/" }));
    const nonsense = resourceServer({ env: { INDIEAUTH_SERVER: server.origin, INTROSPECTION_TOKEN: CREDENTIAL } });
    await expect(nonsense.verifyAccessToken(UNKNOWN)).rejects.toBeInstanceOf(TokenCheckUnavailable);
  });
});

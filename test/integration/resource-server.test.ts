// The resource-server API (netlify-indieauth/resource) in-process, same-site mode: against the
// real local Blobs server, with the store and clock of a test runtime whose tokens come from
// real sign-ins through the handlers. Other-site mode: resource-other-site.test.ts; audiences
// (RFC 8707): resource-audience.test.ts.
import { describe, expect, it } from "vitest";
import { appIdOf } from "../../netlify/lib/protocol/revocations.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { resourceServer, ResourceSetupError, TokenCheckUnavailable } from "../../netlify/lib/resource/index.ts";
import { introspect, postToken, revoke, signInForCode } from "../helpers/endpoints.ts";
import { startFaultyBlobs } from "../helpers/faulty-blobs.ts";
import { OperationCounter } from "../helpers/counting-store.ts";
import { CLIENT_ID, refreshForm } from "../helpers/requests.ts";
import {
  bearer,
  expectRefusal,
  form,
  get,
  MICROPUB,
  MINUTE,
  sameSite,
  SITE,
  tokensForResource,
  UNKNOWN,
} from "../helpers/resource-api.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { tokensFor } from "../helpers/tokens.ts";

const DAY = 24 * 60 * MINUTE;

describe("same site: verifyAccessToken reads the grant, with the rules of /introspect", () => {
  it("answers a live token with me, clientId, scope and exp, as /introspect does, in one round trip (the grant and the revocations)", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const counter = new OperationCounter();
    const api = resourceServer({ env: {}, store: counter.wrap(rt.store), now: () => rt.clock.now });
    const answer = await api.verifyAccessToken(access_token);
    expect(counter.snapshot()).toEqual({ reads: 2, writes: 0, deletes: 0, lists: 0 });
    const introspected = (await (await introspect(rt, access_token)).json()) as Record<string, unknown>;
    expect(answer).toEqual({
      active: true,
      me: introspected.me,
      clientId: introspected.client_id,
      scope: introspected.scope,
      exp: introspected.exp,
    });
    expect(answer).toEqual({
      active: true,
      me: "https://jane.example/",
      clientId: CLIENT_ID,
      scope: "profile email create",
      exp: expect.any(Number),
    });
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
      expect({ token, answer: await api.verifyAccessToken(token) }).toEqual({
        token,
        answer: { active: false, reason },
      });
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
    expect(await api.verifyAccessToken(get({ Authorization: "Basic dXNlcjpwYXNz" }))).toEqual({
      active: false,
      reason: "malformed",
    });
    expect(await api.verifyAccessToken(get({}, `${MICROPUB}?access_token=${access_token}`))).toEqual({
      active: false,
      reason: "invalid-request",
    });
  });

  it("includes the resource a token was issued for as aud, as /introspect does, and refuses it for another resource", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const unbound = await tokensFor(rt);
    expect(await api.verifyAccessToken(unbound.access_token, { resource: MICROPUB })).not.toHaveProperty("aud");
    expect((await api.verifyAccessToken(unbound.access_token, { resource: MICROPUB })).active).toBe(true);

    const { access_token } = await tokensForResource(rt, `${SITE}/mcp`);
    expect(await api.verifyAccessToken(access_token, { resource: `${SITE}/mcp` })).toMatchObject({
      active: true,
      aud: `${SITE}/mcp`,
    });
    expect(await api.verifyAccessToken(access_token, { resource: MICROPUB })).toEqual({
      active: false,
      reason: "wrong-resource",
    });
    // A path is taken against the request's own origin.
    expect(await api.verifyAccessToken(bearer(access_token), { resource: "/micropub" })).toEqual({
      active: false,
      reason: "wrong-resource",
    });
    expect(await api.verifyAccessToken(bearer(access_token, `${SITE}/mcp`), { resource: "/mcp" })).toMatchObject({
      active: true,
      aud: `${SITE}/mcp`,
    });
  });

  it("throws TokenCheckUnavailable when the store does not answer, rather than calling the token inactive", async () => {
    const faulty = await startFaultyBlobs();
    try {
      const rt = await testRuntime();
      const { access_token } = await tokensFor(rt);
      faulty.mode = "down";
      const api = resourceServer({
        env: {},
        store: blobStore(rt.storeName, { connection: faulty.connection, deadlineMs: 500 }),
        now: () => rt.clock.now,
      });
      await expect(api.verifyAccessToken(access_token)).rejects.toBeInstanceOf(TokenCheckUnavailable);
      await expect(api.verifyAccessToken(access_token)).rejects.toMatchObject({ code: "ERR_TOKEN_CHECK_UNAVAILABLE" });
      const response = await expectRefusal(
        await api.requireToken(bearer(access_token)),
        503,
        "temporarily_unavailable",
      );
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
    expect(answer).toMatchObject({
      active: true,
      me: "https://jane.example/",
      clientId: CLIENT_ID,
      scope: "profile email create",
    });
    expect(await sameSite(rt).requireToken(bearer(access_token), { scope: ["create", "profile"] })).toMatchObject({
      active: true,
    });
    expect(await sameSite(rt).requireToken(bearer(access_token), { scope: "create profile" })).toMatchObject({
      active: true,
    });
  });

  it("answers 401 without any error information when there is no token, with the resource's metadata when it is named", async () => {
    const rt = await testRuntime();
    const plain = await expectRefusal(await sameSite(rt).requireToken(get()), 401, null);
    expect(plain.headers.get("www-authenticate")).toBe('Bearer realm="indieauth"');
    const named = await expectRefusal(await sameSite(rt).requireToken(get(), { resource: "/micropub" }), 401, null);
    expect(named.headers.get("www-authenticate")).toBe(
      `Bearer realm="indieauth", resource_metadata="${SITE}/.well-known/oauth-protected-resource/micropub"`,
    );
  });

  it("answers 401 invalid_token for a revoked, unknown or malformed token, the same words for each", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const { access_token } = await tokensFor(rt);
    await revoke(rt, { token: access_token });
    const descriptions = new Set<string>();
    for (const request of [bearer(access_token), bearer(UNKNOWN), bearer("x")]) {
      const response = await expectRefusal(
        await api.requireToken(request, { resource: "/micropub" }),
        401,
        "invalid_token",
      );
      const challenge = response.headers.get("www-authenticate")!;
      expect(challenge).toMatch(
        /^Bearer realm="indieauth", error="invalid_token", error_description="[^"]+", (scope="create", )?resource_metadata="https:\/\/jane\.example\/\.well-known\/oauth-protected-resource\/micropub"$/,
      );
      descriptions.add(challenge);
    }
    expect(descriptions.size).toBe(1);
    await expectRefusal(await api.requireToken(get({ Authorization: "Basic dXNlcjpwYXNz" })), 401, "invalid_token");
  });

  it("names the scope it needs in a 401 too, so that a client can ask for it", async () => {
    const rt = await testRuntime();
    const response = await expectRefusal(
      await sameSite(rt).requireToken(get(), { scope: ["create", "media"], resource: "/micropub" }),
      401,
      null,
    );
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer realm="indieauth", scope="create media", resource_metadata="${SITE}/.well-known/oauth-protected-resource/micropub"`,
    );
  });

  it("never names offline_access in a challenge, nor a scope twice, nor requires offline_access of a token (SEP-2207)", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const listed = ["create", "offline_access", "create", "media"];
    for (const scope of [listed, listed.join(" ")]) {
      const response = await expectRefusal(await api.requireToken(get(), { scope, resource: "/micropub" }), 401, null);
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer realm="indieauth", scope="create media", resource_metadata="${SITE}/.well-known/oauth-protected-resource/micropub"`,
      );
    }
    // A token granted without offline_access (as VS Code and ChatGPT ask) still passes; a missing
    // real scope is named once, offline_access never.
    const { access_token } = await tokensFor(rt);
    expect(await api.requireToken(bearer(access_token), { scope: "create offline_access create" })).toMatchObject({
      active: true,
    });
    const short = await expectRefusal(
      await api.requireToken(bearer(access_token), { scope: "media offline_access media", resource: "/micropub" }),
      403,
      "insufficient_scope",
    );
    expect(short.headers.get("www-authenticate")).toMatch(/ scope="media", /);
  });

  it("with requireAudience, refuses a token issued for no resource, as an MCP server must", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const unbound = await tokensFor(rt);
    const mcp = (token: string) => bearer(token, `${SITE}/mcp`);
    expect(await api.requireToken(mcp(unbound.access_token), { resource: "/mcp" })).toMatchObject({ active: true });
    const refused = await expectRefusal(
      await api.requireToken(mcp(unbound.access_token), { resource: "/mcp", requireAudience: true }),
      401,
      "invalid_token",
    );
    expect(refused.headers.get("www-authenticate")).toContain("not issued for this resource");
    expect(
      await api.verifyAccessToken(unbound.access_token, { resource: `${SITE}/mcp`, requireAudience: true }),
    ).toEqual({ active: false, reason: "wrong-resource" });
    const bound = await tokensForResource(rt, `${SITE}/mcp`);
    expect(
      await api.requireToken(mcp(bound.access_token), { resource: "/mcp", requireAudience: true, scope: "create" }),
    ).toMatchObject({ active: true, aud: `${SITE}/mcp` });
    await expect(api.requireToken(mcp(bound.access_token), { requireAudience: true })).rejects.toBeInstanceOf(
      TypeError,
    );
    await expect(api.requireToken(mcp(bound.access_token), { requireAudience: true })).rejects.toMatchObject({
      code: "ERR_RESOURCE_USAGE",
    });
  });

  it("answers 403 insufficient_scope naming the scope the request needs", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt, "profile");
    const response = await expectRefusal(
      await sameSite(rt).requireToken(bearer(access_token), { scope: "create" }),
      403,
      "insufficient_scope",
    );
    expect(response.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="indieauth", error="insufficient_scope", scope="create", /,
    );
    const both = await expectRefusal(
      await sameSite(rt).requireToken(bearer(access_token), { scope: ["create", "media"] }),
      403,
      "insufficient_scope",
    );
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
    const json = new Request(MICROPUB, {
      method: "POST",
      body: JSON.stringify({ access_token }),
      headers: { "Content-Type": "application/json" },
    });
    await expectRefusal(await api.requireToken(json), 401, null);
  });

  it("refuses a token in the URL, or in the header and the body at once, with 400 invalid_request and its challenge", async () => {
    const rt = await testRuntime();
    const api = sameSite(rt);
    const mine = await tokensFor(rt);
    const other = await tokensFor(rt);
    const challenge =
      /^Bearer realm="indieauth", error="invalid_request", error_description="[^"]+", (scope="create", )?resource_metadata="https:\/\/jane\.example\/\.well-known\/oauth-protected-resource\/micropub"$/;
    const inUrl = await expectRefusal(
      await api.requireToken(get({}, `${MICROPUB}?q=config&access_token=${mine.access_token}`), {
        resource: "/micropub",
      }),
      400,
      "invalid_request",
    );
    expect(inUrl.headers.get("www-authenticate")).toMatch(challenge);
    const multipart = new FormData();
    multipart.set("h", "entry");
    multipart.set("access_token", other.access_token);
    const both = [
      form({ h: "entry", access_token: other.access_token }, MICROPUB, {
        Authorization: `Bearer ${mine.access_token}`,
      }),
      form({ h: "entry", access_token: mine.access_token }, MICROPUB, { Authorization: `Bearer ${mine.access_token}` }),
      new Request(MICROPUB, {
        method: "POST",
        body: multipart,
        headers: { Authorization: `Bearer ${mine.access_token}` },
      }),
    ];
    for (const request of both) {
      expect(await api.verifyAccessToken(request.clone())).toEqual({ active: false, reason: "invalid-request" });
      const refused = await expectRefusal(
        await api.requireToken(request, { scope: "create", resource: "/micropub" }),
        400,
        "invalid_request",
      );
      expect(refused.headers.get("www-authenticate")).toMatch(challenge);
      expect(((await refused.json()) as { error_description: string }).error_description).toContain("not in both");
    }
    // The header with a form body that carries no token is one method: accepted.
    expect(
      await api.requireToken(form({ h: "entry" }, MICROPUB, { Authorization: `Bearer ${mine.access_token}` }), {
        scope: "create",
        resource: "/micropub",
      }),
    ).toMatchObject({ active: true });
  });

  it("answers 401 invalid_token for a token issued for another resource", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensForResource(rt, `${SITE}/mcp`);
    const response = await expectRefusal(
      await sameSite(rt).requireToken(bearer(access_token), { resource: "/micropub" }),
      401,
      "invalid_token",
    );
    expect(response.headers.get("www-authenticate")).toContain("not issued for this resource");
    expect(await sameSite(rt).requireToken(bearer(access_token, `${SITE}/mcp`), { resource: "/mcp" })).toMatchObject({
      active: true,
      aud: `${SITE}/mcp`,
    });
  });

  it("answers 500 naming the variable when other-site mode is half set up", async () => {
    const api = resourceServer({ env: { INDIEAUTH_SERVER: "https://auth.jane.example" } });
    const response = await expectRefusal(await api.requireToken(bearer(UNKNOWN)), 500, "server_error");
    expect(((await response.json()) as { error_description: string }).error_description).toContain(
      "INTROSPECTION_TOKEN",
    );
    await expect(api.verifyAccessToken(UNKNOWN)).rejects.toBeInstanceOf(ResourceSetupError);
    await expect(api.verifyAccessToken(UNKNOWN)).rejects.toMatchObject({ code: "ERR_RESOURCE_SETUP" });
  });
});

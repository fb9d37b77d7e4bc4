// The resource-server API in other-site mode: against this server's real POST /introspect
// handler served over local HTTP, asked with INTROSPECTION_TOKEN, on the test runtime's clock.
import { afterEach, describe, expect, it } from "vitest";
import {
  resourceServer,
  ResourceSetupError,
  TokenCheckUnavailable,
  type ActiveToken,
  type ResourceServer,
} from "../../netlify/lib/resource/index.ts";
import { endpoints, introspect, revoke } from "../helpers/endpoints.ts";
import { serveHandler, type HandlerServer } from "../helpers/handler-server.ts";
import {
  bearer,
  CREDENTIAL,
  expectRefusal,
  MICROPUB,
  MINUTE,
  sameSite,
  SITE,
  tokensForResource,
  UNKNOWN,
} from "../helpers/resource-api.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { tokensFor } from "../helpers/tokens.ts";

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
    const api = resourceServer({
      env: { INDIEAUTH_SERVER: server.origin, INTROSPECTION_TOKEN: CREDENTIAL },
      now: () => rt.clock.now,
    });
    return { rt, api, served: server };
  }

  it("gives the same answers as the same-site mode, asking nothing for a token of the wrong kind", async () => {
    const { rt, api, served } = await otherSite();
    expect(api.mode).toBe("introspection");
    const { access_token, refresh_token } = await tokensFor(rt);
    expect(await api.verifyAccessToken(access_token)).toEqual(await sameSite(rt).verifyAccessToken(access_token));
    const bound = await tokensForResource(rt, `${SITE}/mcp`);
    expect(await api.verifyAccessToken(bound.access_token)).toEqual(
      await sameSite(rt).verifyAccessToken(bound.access_token),
    );
    expect(await api.verifyAccessToken(bound.access_token, { resource: `${SITE}/mcp` })).toEqual(
      await sameSite(rt).verifyAccessToken(bound.access_token, { resource: `${SITE}/mcp` }),
    );
    expect(await api.verifyAccessToken(bound.access_token, { resource: `${SITE}/mcp` })).toMatchObject({
      aud: `${SITE}/mcp`,
    });
    expect(await api.verifyAccessToken(bound.access_token, { resource: MICROPUB })).toEqual({
      active: false,
      reason: "wrong-resource",
    });
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
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => api.verifyAccessToken(live.access_token)),
      api.verifyAccessToken(revoked.access_token),
    ]);
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

// A token issued for one resource (RFC 8707: `resource` at /auth) is good at that resource only.
// Every way a verifier can meet it, through the real handlers and the resource-server API in
// both modes, against the real local Blobs server: an app signed in for another MCP server
// (https://evil-mcp.example/mcp) must not get in anywhere else on the owner's site.
import { afterEach, describe, expect, it } from "vitest";
import { resourceServer } from "../../netlify/lib/resource/index.ts";
import { endpoints, introspect, userinfo } from "../helpers/endpoints.ts";
import { serveHandler, type HandlerServer } from "../helpers/handler-server.ts";
import { BASE } from "../helpers/requests.ts";
import {
  bearer,
  CREDENTIAL,
  expectRefusal,
  MICROPUB,
  sameSite,
  SITE,
  tokensForResource,
} from "../helpers/resource-api.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { tokensFor } from "../helpers/tokens.ts";

const EVIL = "https://evil-mcp.example/mcp";
const SCOPES = ["profile", "create"];

const runtime = () => testRuntime({ env: { INTROSPECTION_TOKEN: CREDENTIAL } });
const legacyVerification = (rt: TestRuntime, token: string) =>
  endpoints.token(new Request(`${BASE}/token`, { headers: { Authorization: `Bearer ${token}` } }), rt);

let server: HandlerServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the resource API and a token bound to another resource", () => {
  it('refuses it where the caller names no resource, as in requireToken(request, { scope: "create" }), in both modes', async () => {
    const rt = await runtime();
    server = await serveHandler((req) => endpoints.introspect(req, rt));
    const otherSite = resourceServer({
      env: { INDIEAUTH_SERVER: server.origin, INTROSPECTION_TOKEN: CREDENTIAL },
      now: () => rt.clock.now,
    });
    const evil = await tokensForResource(rt, EVIL, SCOPES);
    const unbound = await tokensFor(rt);
    for (const api of [sameSite(rt), otherSite]) {
      const refused = await expectRefusal(
        await api.requireToken(bearer(evil.access_token), { scope: "create" }),
        401,
        "invalid_token",
      );
      expect(refused.headers.get("www-authenticate")).toBe(
        'Bearer realm="indieauth", error="invalid_token", error_description="The access token was not issued for this resource.", scope="create"',
      );
      expect(await api.verifyAccessToken(evil.access_token)).toEqual({ active: false, reason: "wrong-resource" });
      expect(await api.verifyAccessToken(bearer(evil.access_token))).toEqual({
        active: false,
        reason: "wrong-resource",
      });
      await expectRefusal(
        await api.requireToken(bearer(evil.access_token), { scope: "create", resource: "/micropub" }),
        401,
        "invalid_token",
      );
      // Where it was issued for, it is good; a token issued for no resource (what IndieAuth
      // clients get) stays good at every resource of the site.
      expect(
        await api.requireToken(bearer(evil.access_token, EVIL), { scope: "create", resource: EVIL }),
      ).toMatchObject({ active: true, aud: EVIL });
      expect(await api.requireToken(bearer(unbound.access_token), { scope: "create" })).toMatchObject({ active: true });
    }
  });
});

describe("the server's own verifiers and a token bound to a resource", () => {
  it("GET /token and /introspect asked by the token itself answer {active: false}; INTROSPECTION_TOKEN gets the full answer with aud", async () => {
    const rt = await runtime();
    const evil = await tokensForResource(rt, EVIL, SCOPES);
    const mine = await tokensForResource(rt, `${SITE}/mcp`, SCOPES);
    for (const { access_token } of [evil, mine]) {
      const legacy = await legacyVerification(rt, access_token);
      expect(legacy.status).toBe(200);
      expect(legacy.headers.get("cache-control")).toBe("no-store");
      expect(await legacy.json()).toEqual({ active: false });
      expect(await (await introspect(rt, access_token)).json()).toEqual({ active: false });
      expect(await (await introspect(rt, access_token, { token: access_token })).json()).toEqual({ active: false });
    }
    expect(await (await introspect(rt, CREDENTIAL, { token: evil.access_token })).json()).toMatchObject({
      active: true,
      scope: "profile create",
      aud: EVIL,
    });
    expect(await (await introspect(rt, CREDENTIAL, { token: mine.access_token })).json()).toMatchObject({
      active: true,
      aud: `${SITE}/mcp`,
    });
    // What a Micropub endpoint verifying this way sees of an ordinary IndieAuth token: unchanged.
    const unbound = await tokensFor(rt);
    expect(await (await legacyVerification(rt, unbound.access_token)).json()).toMatchObject({
      active: true,
      scope: "profile email create",
    });
    expect(await (await introspect(rt, unbound.access_token)).json()).toMatchObject({ active: true });
  });

  it("/userinfo refuses it with 401 invalid_token unless its resource is this server", async () => {
    const rt = await runtime();
    for (const resource of [EVIL, `${SITE}/mcp`, MICROPUB]) {
      const { access_token } = await tokensForResource(rt, resource, SCOPES);
      const refused = await userinfo(rt, access_token);
      await expectRefusal(refused.clone(), 401, "invalid_token");
      expect(refused.headers.get("www-authenticate")).toBe(
        'Bearer realm="indieauth", error="invalid_token", error_description="The access token was not issued for this server."',
      );
    }
    for (const resource of [`${BASE}/`, BASE, `${BASE}/userinfo`]) {
      const { access_token } = await tokensForResource(rt, resource, SCOPES);
      const answer = await userinfo(rt, access_token);
      expect({ resource, status: answer.status }).toEqual({ resource, status: 200 });
      expect(await answer.json()).toMatchObject({ sub: "https://jane.example/", name: "Jane Doe" });
    }
    expect((await userinfo(rt, (await tokensFor(rt)).access_token)).status).toBe(200);
  });
});

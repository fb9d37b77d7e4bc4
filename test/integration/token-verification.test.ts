// POST /introspect, legacy GET /token, POST /revoke and GET /userinfo, in-process against the
// real local Blobs server.
import { describe, expect, it } from "vitest";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { introspect, postToken, revoke, userinfo } from "../helpers/endpoints.ts";
import { BASE, CLIENT_ID, refreshForm } from "../helpers/requests.ts";
import { expectOAuthError, introspection, tokensFor } from "../helpers/tokens.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { appIdOf } from "../../netlify/lib/protocol/revocations.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

const RESOURCE_SERVER = "r".repeat(40);
const MINUTE = 60 * 1000;

describe("verification: POST /introspect and legacy GET /token", () => {
  it("answers an active token with exactly the IndieAuth fields, times as integers", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const response = await introspect(rt, access_token);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(["active", "client_id", "exp", "iat", "me", "scope"]);
    expect(body).toMatchObject({
      active: true,
      me: "https://jane.example/",
      client_id: CLIENT_ID,
      scope: "profile email create",
    });
    expect(Number.isInteger(body.exp) && Number.isInteger(body.iat)).toBe(true);
    expect(body.exp - body.iat).toBe(30 * 24 * 60 * 60);
  });

  it("gives the same body at the legacy GET /token", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const legacy = await tokenEndpoint(
      new Request(`${BASE}/token`, { headers: { Authorization: `Bearer ${access_token}` } }),
      rt,
    );
    expect(legacy.status).toBe(200);
    expect(await legacy.json()).toEqual(await introspection(rt, access_token));
  });

  it("answers exactly {active: false} for an unknown token", async () => {
    const rt = await testRuntime();
    expect(await introspection(rt, `iat_${"A".repeat(22)}.${"B".repeat(43)}`)).toEqual({ active: false });
    expect(await introspection(rt, "nonsense")).toEqual({ active: false });
  });

  it("lets the Bearer token name itself in the token field, but not another token", async () => {
    const rt = await testRuntime();
    const mine = await tokensFor(rt);
    const other = await tokensFor(rt);
    expect((await introspect(rt, mine.access_token, { token: mine.access_token })).status).toBe(200);
    const refused = await introspect(rt, mine.access_token, { token: other.access_token });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("lets the resource server's INTROSPECTION_TOKEN check any token from the form (never from the URL)", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const { access_token } = await tokensFor(rt);
    expect(await (await introspect(rt, RESOURCE_SERVER, { token: access_token })).json()).toMatchObject({
      active: true,
    });
    await expectOAuthError(await introspect(rt, RESOURCE_SERVER, {}, `?token=${access_token}`), 400, "invalid_request");
    await expectOAuthError(await introspect(rt, RESOURCE_SERVER), 400, "invalid_request");
  });

  it("refuses callers without a credential, or with a wrong one, with 401 and WWW-Authenticate", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const { access_token } = await tokensFor(rt);
    const none = await introspect(rt, null, { token: access_token });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await introspect(rt, "s".repeat(40), { token: access_token })).status).toBe(401);
  });

  it("records use at most once every few minutes, in the app's usage record", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const grant = await rt.store.get<{ clientId: string }>(RECORDS.grant.key(access_token.slice(4, 26)));
    const usageKey = RECORDS.appUsage.key(appIdOf(grant!.clientId));
    await introspection(rt, access_token);
    expect(await rt.store.get(usageKey)).toBeNull();
    rt.clock.advance(6 * MINUTE);
    await introspection(rt, access_token);
    const used = rt.clock.now;
    expect(await rt.store.get(usageKey)).toMatchObject({ lastUsedAt: used });
    rt.clock.advance(MINUTE);
    await introspection(rt, access_token);
    expect(await rt.store.get(usageKey)).toMatchObject({ lastUsedAt: used });
  });
});

describe("revocation: POST /revoke and legacy action=revoke", () => {
  it("revoking the access token kills the refresh token too", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    const response = await revoke(rt, { token: tokens.access_token });
    expect(response.status).toBe(200);
    expect(await introspection(rt, tokens.access_token)).toEqual({ active: false });
    await expectOAuthError(await postToken(rt, refreshForm(tokens.refresh_token)), 400, "invalid_grant");
  });

  it("revoking the refresh token kills the access token, whatever the hint says", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    expect((await revoke(rt, { token: tokens.refresh_token, token_type_hint: "access_token" })).status).toBe(200);
    expect(await introspection(rt, tokens.access_token)).toEqual({ active: false });
  });

  it("answers 200 for an unknown token and 400 without one", async () => {
    const rt = await testRuntime();
    expect((await revoke(rt, { token: "unknown" })).status).toBe(200);
    await expectOAuthError(await revoke(rt, {}), 400, "invalid_request");
  });

  it("does not revoke for a token with the right grant but a wrong secret", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await revoke(rt, { token: `${tokens.access_token.slice(0, 27)}${"A".repeat(43)}` });
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
  });

  it("legacy POST /token action=revoke revokes too", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    expect((await postToken(rt, { action: "revoke", token: tokens.access_token })).status).toBe(200);
    expect(await introspection(rt, tokens.access_token)).toEqual({ active: false });
  });
});

describe("GET /userinfo", () => {
  it("answers the profile with the profile scope, and e-mail only with email", async () => {
    const rt = await testRuntime();
    const withEmail = await userinfo(rt, (await tokensFor(rt, "profile email")).access_token);
    expect(withEmail.status).toBe(200);
    expect(await withEmail.json()).toEqual({
      sub: "https://jane.example/",
      name: "Jane Doe",
      url: "https://jane.example/",
      photo: "https://jane.example/photo.jpg",
      email: "jane@jane.example",
    });
    expect(await (await userinfo(rt, (await tokensFor(rt, "profile")).access_token)).json()).not.toHaveProperty(
      "email",
    );
  });

  it("challenges a request without a token, with no error code", async () => {
    const response = await userinfo(await testRuntime(), null);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(response.headers.get("www-authenticate")).not.toContain("error=");
  });

  it("says invalid_token for an unknown or revoked token", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await revoke(rt, { token: tokens.access_token });
    for (const token of [tokens.access_token, "garbage"]) {
      const response = await userinfo(rt, token);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
  });

  it("says insufficient_scope without the profile scope", async () => {
    const rt = await testRuntime();
    const response = await userinfo(rt, (await tokensFor(rt, "create")).access_token);
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });
});

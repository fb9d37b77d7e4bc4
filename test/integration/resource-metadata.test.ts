// Protected resource metadata (RFC 9728) from the resource-server API: the document that names
// this server as a resource's authorization server, and the handler that serves it.
import { describe, expect, it } from "vitest";
import { resourceServer } from "../../netlify/lib/resource/index.ts";
import { CREDENTIAL, get, MICROPUB, SITE } from "../helpers/resource-api.ts";

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
    const other = resourceServer({
      env: { INDIEAUTH_SERVER: "https://auth.jane.example", INTROSPECTION_TOKEN: CREDENTIAL },
    });
    expect(other.protectedResourceMetadata({ resource: MICROPUB }).authorization_servers).toEqual([
      "https://auth.jane.example/",
    ]);
  });

  it("never publishes offline_access in scopes_supported, nor a scope twice, whatever the blog lists (SEP-2207)", async () => {
    const api = resourceServer({ env: { URL: SITE } });
    expect(
      api.protectedResourceMetadata({ resource: "/mcp", scopes: ["read", "offline_access", "read", "create"] })
        .scopes_supported,
    ).toEqual(["read", "create"]);
    const handler = api.protectedResourceMetadataHandler({ resource: "/mcp", scopes: ["offline_access"] });
    expect(await (await handler(get({}, `${SITE}/.well-known/oauth-protected-resource/mcp`))).json()).toMatchObject({
      scopes_supported: [],
    });
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
    expect(await (await handler(get({}, `${SITE}/.well-known/oauth-protected-resource/mcp`))).json()).toMatchObject({
      resource: `${SITE}/mcp`,
    });
    expect(await (await handler(get({}, `${SITE}/.well-known/oauth-protected-resource`))).json()).toMatchObject({
      resource: `${SITE}/`,
    });
    expect((await handler(get({}, `${SITE}/.well-known/oauth-protected-resource/elsewhere`))).status).toBe(404);
    expect(
      (await handler(new Request(`${SITE}/.well-known/oauth-protected-resource/mcp`, { method: "POST" }))).status,
    ).toBe(405);
    expect(
      (await handler(new Request(`${SITE}/.well-known/oauth-protected-resource/mcp`, { method: "OPTIONS" }))).status,
    ).toBe(204);
  });
});

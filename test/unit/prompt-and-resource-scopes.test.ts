// The pure parts of prompt (protocol/prompt.ts) and of a resource's default scopes
// (clients/resource-scopes.ts, protocol/resource-default-scopes.ts); the integration tests
// (test/integration/prompt.test.ts, offline-and-default-scopes.test.ts) drive them through
// GET /auth and the approve step.
import { describe, expect, it } from "vitest";
import { scopesOfMetadata } from "../../netlify/lib/clients/resource-scopes.ts";
import { resourceMetadataUrl } from "../../netlify/lib/core/resource-metadata-url.ts";
import { InvalidRequest } from "../../netlify/lib/errors.ts";
import { parsePrompt, signedPrompt } from "../../netlify/lib/protocol/prompt.ts";
import { onOwnerSite } from "../../netlify/lib/protocol/resource-default-scopes.ts";
import { resourcePathOf } from "../../netlify/lib/resource/metadata.ts";

describe("parsePrompt", () => {
  it.each([
    [null, []],
    ["", []],
    ["consent", ["consent"]],
    ["select_account", ["consent"]],
    ["login  consent ", ["login", "consent"]],
    ["consent select_account login", ["consent", "login"]],
    ["none", ["none"]],
    ["none none", ["none"]],
    ["unknown create", []],
  ])("%j reads as %j", (raw, values) => {
    expect(parsePrompt(raw)).toEqual(values);
  });

  it.each(["none login", "consent none", "none whatever"])("%j is invalid_request", (raw) => {
    expect(() => parsePrompt(raw)).toThrow(InvalidRequest);
  });

  it("a signed request carries back login and consent only", () => {
    expect(signedPrompt(["login", "none", "consent", 3, "x"])).toEqual(["login", "consent"]);
    expect(signedPrompt("login")).toEqual([]);
  });
});

describe("a resource's metadata", () => {
  it("lives where the resource API serves it (RFC 9728 3.1)", () => {
    for (const resource of ["https://jane.example/mcp", "https://jane.example/", "https://jane.example/a/b?x=1"]) {
      const url = new URL(resource);
      expect(resourcePathOf(new URL(resourceMetadataUrl(url)))).toBe(url.pathname + url.search);
    }
  });

  it("gives its scopes for exactly the resource asked about, without offline_access or malformed names", () => {
    const doc = (fields: Record<string, unknown>) =>
      JSON.stringify({ resource: "https://jane.example/mcp", ...fields });
    expect(
      scopesOfMetadata(
        doc({ scopes_supported: ["create", "offline_access", "bad scope", 7, "create"] }),
        "https://jane.example/mcp",
      ),
    ).toEqual({ scopes: ["create"] });
    expect(scopesOfMetadata(doc({ scopes_supported: ["create"] }), "https://jane.example/other")).toHaveProperty(
      "missing",
    );
    expect(scopesOfMetadata(doc({}), "https://jane.example/mcp")).toEqual({
      missing: "its metadata has no scopes_supported",
    });
    expect(scopesOfMetadata("<html>", "https://jane.example/mcp")).toEqual({ missing: "its metadata is not JSON" });
    expect(scopesOfMetadata("[]", "https://jane.example/mcp")).toEqual({
      missing: "its metadata is not a JSON object",
    });
  });

  it("is looked up only on the owner's site", () => {
    const site = { me: "https://jane.example/", baseUrl: "https://auth.jane.example", setup: "standalone" as const };
    expect(onOwnerSite("https://jane.example/mcp", site)).toBe(true);
    expect(onOwnerSite("https://jane.example:8443/mcp", site)).toBe(false);
    expect(onOwnerSite("https://auth.jane.example/mcp", site)).toBe(false);
    expect(onOwnerSite("https://auth.jane.example/mcp", { ...site, setup: "shared-origin" })).toBe(true);
    expect(onOwnerSite("https://evil.example/jane.example/mcp", site)).toBe(false);
  });
});

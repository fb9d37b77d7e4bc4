// The MCP check's small rules: reading a Bearer challenge, where RFC 9728 §3.1 puts a resource's
// metadata, and which URLs the server agrees to fetch for the owner.
import { describe, expect, it } from "vitest";
import { metadataDocument } from "../../netlify/lib/endpoints/metadata.ts";
import { bearerChallenge, checkableUrl, wellKnownMetadataUrl } from "../../netlify/lib/owner/mcp-check.ts";
import { authorizationServerFindings } from "../../netlify/lib/owner/mcp-check-server.ts";
import type { Config } from "../../netlify/lib/platform/config.ts";

describe("the MCP check", () => {
  it("finds everything the hosts need in this server's own metadata, registration for the hosts without a document included", () => {
    const metadata = metadataDocument({
      baseUrl: "https://auth.jane.example",
      issuer: "https://auth.jane.example/",
    } as Config);
    expect(authorizationServerFindings(metadata).filter((finding) => !finding.ok)).toEqual([]);
    const { registration_endpoint: _offered, ...without } = metadata;
    expect(
      authorizationServerFindings(without)
        .filter((finding) => !finding.ok)
        .map((finding) => finding.says),
    ).toEqual([
      "This server's metadata has no registration_endpoint: Cursor, MCP Inspector v0.x, Gemini CLI and Codex cannot connect.",
    ]);
  });

  it("reads the Bearer challenge's parameters, quoted or not, beside another scheme", () => {
    expect(
      bearerChallenge(
        'Bearer resource_metadata="https://jane.example/.well-known/oauth-protected-resource/mcp", scope="create update"',
      ),
    ).toEqual({
      resource_metadata: "https://jane.example/.well-known/oauth-protected-resource/mcp",
      scope: "create update",
    });
    expect(
      bearerChallenge('Basic realm="blog", Bearer error=invalid_token, error_description="a \\"quoted\\" word"'),
    ).toEqual({ error: "invalid_token", error_description: 'a "quoted" word' });
    expect(bearerChallenge("Bearer")).toEqual({});
    expect(bearerChallenge('Basic realm="blog"')).toBeNull();
    expect(bearerChallenge(undefined)).toBeNull();
  });

  it("puts the metadata at the well-known path followed by the resource's path", () => {
    expect(wellKnownMetadataUrl(new URL("https://jane.example/mcp"))).toBe(
      "https://jane.example/.well-known/oauth-protected-resource/mcp",
    );
    expect(wellKnownMetadataUrl(new URL("https://mcp.jane.example/"))).toBe(
      "https://mcp.jane.example/.well-known/oauth-protected-resource",
    );
  });

  it("checks public https URLs, and this machine's only in local development", () => {
    expect(checkableUrl("https://jane.example/mcp", false).ok).toBe(true);
    expect(checkableUrl("http://jane.example/mcp", false)).toEqual({
      ok: false,
      reason: "The MCP URL must start with https:// (hosts refuse anything else).",
    });
    expect(checkableUrl("http://127.0.0.1:3000/mcp", false).ok).toBe(false);
    expect(checkableUrl("http://localhost:3000/mcp", false).ok).toBe(false);
    expect(checkableUrl("http://127.0.0.1:3000/mcp", true).ok).toBe(true);
    expect(checkableUrl("https://user:secret@jane.example/mcp", false).ok).toBe(false);
    expect(checkableUrl("jane.example/mcp", false).ok).toBe(false);
    expect(checkableUrl("ftp://jane.example/mcp", false).ok).toBe(false);
  });
});

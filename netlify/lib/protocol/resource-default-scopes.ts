// The default scope of a request that names a resource but no scope granting access there
// (RFC 6749 3.3: the server may use a default, or refuse with invalid_scope). MCP hosts send
// such requests when the resource's challenge and metadata name no scope: Claude Code sends no
// scope, claude.ai ` offline_access` (docs/research/mcp-hosts.md). The default is what the
// resource lists in its own RFC 9728 metadata, looked up only for a resource on the owner's
// site: nobody else's metadata decides what the owner is asked to grant.
import { resourceMetadataUrl } from "../core/resource-metadata-url.ts";
import { isLoopbackHost } from "../core/urls.ts";
import { InvalidScope } from "../errors.ts";
import type { Config } from "../platform/config.ts";
import type { Capabilities } from "../platform/runtime.ts";

type Site = Pick<Config, "me" | "baseUrl" | "setup">;

/** Whether the resource is on the owner's site: the origin of ME, or, where this server is
 * added to the blog and answers on its host (platform/setup.ts), that origin too. */
export function onOwnerSite(resource: string, site: Site): boolean {
  const origin = new URL(resource).origin;
  if (origin === new URL(site.me).origin) return true;
  return site.setup === "shared-origin" && origin === new URL(site.baseUrl).origin;
}

/** The resource's default scopes; InvalidScope (sent to the verified redirect URI) saying what
 * the resource should publish where there are none. */
export async function defaultScopesFor(
  resource: string,
  site: Site,
  lookup: Capabilities["resourceScopes"],
): Promise<string[]> {
  const ask =
    "Ask for a scope, or publish the resource's scopes in scopes_supported of its protected resource metadata (RFC 9728)";
  if (!onOwnerSite(resource, site)) {
    throw new InvalidScope(
      `The request names no scope for ${resource}, which is not on ${new URL(site.me).origin}: no default scope is looked up there. Ask for a scope.`,
    );
  }
  // ME is http only in local development (platform/config-values.ts): a site on this machine.
  const localDevelopment = new URL(site.me).protocol === "http:" && isLoopbackHost(new URL(resource).hostname);
  const found = await lookup(resource, { localDevelopment });
  if ("scopes" in found) return found.scopes;
  throw new InvalidScope(
    `The request names no scope for ${resource}, and no default was found: ${found.missing}. ${ask} at ${resourceMetadataUrl(new URL(resource))}.`,
  );
}

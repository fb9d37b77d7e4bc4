// RFC 9728 protected resource metadata: the document that names this IndieAuth server as the
// authorization server of a resource (a Micropub endpoint, an MCP server).
import { RESOURCE_METADATA_PATH } from "../core/resource-metadata-url.ts";
import { urlOf } from "../core/urls.ts";
import { ResourceUsageError } from "./types.ts";

export interface ResourceDescription {
  /** The resource's identifier: an absolute URL, or a path on the site (e.g. "/micropub"),
   * taken against the origin the request came to. */
  resource: string;
  /** The scopes it understands (`scopes_supported`). */
  scopes?: readonly string[];
  /** A human-readable name (`resource_name`). */
  name?: string;
  /** A page about it (`resource_documentation`). */
  documentation?: string;
}

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported?: string[];
  bearer_methods_supported: string[];
  resource_name?: string;
  resource_documentation?: string;
}

/** The resource identifier as an absolute URL: http(s), no fragment. A path is taken against
 * `origin`; without one, a path cannot be resolved. */
export function resolveResource(resource: string, origin: string | undefined): string {
  const url = urlOf(resource, resource.startsWith("/") && !resource.startsWith("//") ? origin : undefined);
  if (!url)
    throw new ResourceUsageError(
      `resource must be an absolute http(s) URL, or a path with a known origin: ${JSON.stringify(resource)}`,
    );
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.hash) {
    throw new ResourceUsageError(
      `resource must be an http(s) URL without a fragment (RFC 9728 1.2): ${JSON.stringify(resource)}`,
    );
  }
  return url.href;
}

/** The path and query of a resource that a metadata request names, or null if the request is
 * not for protected resource metadata. */
export function resourcePathOf(requestUrl: URL): string | null {
  const { pathname, search } = requestUrl;
  if (pathname !== RESOURCE_METADATA_PATH && !pathname.startsWith(`${RESOURCE_METADATA_PATH}/`)) return null;
  return (pathname.slice(RESOURCE_METADATA_PATH.length) || "/") + search;
}

/** A resource's own scopes: each once, and never `offline_access`, the authorization server's
 * business (a refresh token), not a permission at the resource (RFC 9728 2, MCP 2026-07-28 "Refresh
 * Tokens", SEP-2207): hosts that read it here would ask for it as if the resource needed it. */
export function resourceScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes.filter((scope) => scope !== "" && scope !== "offline_access"))];
}

export function metadataDocument(
  description: ResourceDescription,
  resource: string,
  issuer: string,
): ProtectedResourceMetadata {
  return {
    resource,
    authorization_servers: [issuer],
    ...(description.scopes ? { scopes_supported: resourceScopes(description.scopes) } : {}),
    // The Authorization header, and the access_token field of a form body (Micropub).
    bearer_methods_supported: ["header", "body"],
    ...(description.name ? { resource_name: description.name } : {}),
    ...(description.documentation ? { resource_documentation: description.documentation } : {}),
  };
}

// What the sign-in page says a scope lets the app do. Without a resource, the IndieWeb meanings
// (Micropub's create, Microsub's read...: scopes.ts). When the request names a resource (an MCP
// server, RFC 8707), the token is good there alone, and that server decides what its scopes
// mean: `read` at an MCP server is no feed reader. So its scopes are said in terms of it, and
// only the scopes this server itself answers for (the profile, e-mail, staying connected) keep
// their own words.
import { isKnownScope, KNOWN_SCOPES } from "./scopes.ts";

/** Said the same whatever the resource: what this server gives, or how long the app stays. */
const OWN_SCOPES = new Set(["profile", "email", "offline_access"]);

/** The usual scope names, said of the resource's host. */
const AT_RESOURCE: Readonly<Record<string, (host: string) => string>> = {
  read: (host) => `Read what ${host} offers`,
  create: (host) => `Create things through ${host}`,
  post: (host) => `Create things through ${host}`,
  update: (host) => `Change things through ${host}`,
  delete: (host) => `Delete things through ${host}`,
  media: (host) => `Upload files to ${host}`,
};

/** The words for `scope`; for a request with a resource, `resourceHost` is its host. Empty for
 * a scope this server does not know and no resource names. */
export function scopeWords(scope: string, resourceHost?: string): string {
  if (resourceHost === undefined || OWN_SCOPES.has(scope)) return isKnownScope(scope) ? KNOWN_SCOPES[scope]! : "";
  const said = Object.hasOwn(AT_RESOURCE, scope) ? AT_RESOURCE[scope]! : undefined;
  return said ? said(resourceHost) : isKnownScope(scope) ? `What ${resourceHost} lets an app with “${scope}” do` : "";
}

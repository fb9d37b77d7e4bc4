// netlify-indieauth/resource: protecting the blog's own functions (a Micropub endpoint, a media
// endpoint, an MCP server) with the tokens this IndieAuth server issues.
//
//   import { requireToken } from "netlify-indieauth/resource";
//   const token = await requireToken(request, { scope: "create", resource: "/micropub" });
//   if (token instanceof Response) return token;      // 401 / 403 / 503, ready to send
//
// Same site or another (settings.ts): see docs/resource-api.md. The environment is read on first
// use, once per cold start.
import { resourceServer, type ResourceServer } from "./server.ts";

let fromEnvironment: ResourceServer | undefined;
const server = (): ResourceServer => (fromEnvironment ??= resourceServer());

/** `{ active: true, me, clientId, scope, aud?, exp }` for a live access token, else
 * `{ active: false, reason }`. Given a request, reads its token as `requireToken` does.
 * Throws TokenCheckUnavailable when storage (or the server) cannot answer. */
export const verifyAccessToken: ResourceServer["verifyAccessToken"] = (tokenOrRequest, options) =>
  server().verifyAccessToken(tokenOrRequest, options);

/** The verified token, or a ready Response: 401 (no token, or not active), 403
 * `insufficient_scope` naming the needed scope, 400 for a token in the URL, 503 when tokens
 * cannot be checked (RFC 6750). */
export const requireToken: ResourceServer["requireToken"] = (request, options) =>
  server().requireToken(request, options);

/** The RFC 9728 document naming this IndieAuth server as the resource's authorization server. */
export const protectedResourceMetadata: ResourceServer["protectedResourceMetadata"] = (description, request) =>
  server().protectedResourceMetadata(description, request);

/** A function handler answering /.well-known/oauth-protected-resource and its path-specific
 * forms (/.well-known/oauth-protected-resource/micropub) for the resources described. */
export const protectedResourceMetadataHandler: ResourceServer["protectedResourceMetadataHandler"] = (resources) => {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  return (request) => (handler ??= server().protectedResourceMetadataHandler(resources))(request);
};

export { resourceServer };
export type { ResourceServer, ResourceServerOptions } from "./server.ts";
export type { ProtectedResourceMetadata, ResourceDescription } from "./metadata.ts";
export { ResourceSetupError, ResourceUsageError, TokenCheckUnavailable } from "./types.ts";
export type {
  ActiveToken,
  InactiveReason,
  ResourceErrorCode,
  InactiveToken,
  RequireOptions,
  TokenVerification,
  VerifyOptions,
} from "./types.ts";

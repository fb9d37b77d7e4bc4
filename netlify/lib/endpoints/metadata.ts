// GET /.well-known/oauth-authorization-server: RFC 8414 metadata with the IndieAuth fields.
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import type { Config } from "../platform/config.ts";
import { endpoint, route } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { SUPPORTED_SCOPES } from "../protocol/scopes.ts";
import { ASSERTION_ALGORITHMS } from "../core/client-shape.ts";
import { REGISTRATION_PATH } from "../protocol/registered-clients.ts";

export function metadataDocument(config: Config): Record<string, unknown> {
  const base = config.baseUrl;
  return {
    issuer: config.issuer,
    authorization_endpoint: `${base}/auth`,
    token_endpoint: `${base}/token`,
    introspection_endpoint: `${base}/introspect`,
    introspection_endpoint_auth_methods_supported: ["Bearer"],
    revocation_endpoint: `${base}/revoke`,
    // A private_key_jwt client revokes with its assertion, as it redeems (revoking-client.ts).
    revocation_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
    revocation_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    userinfo_endpoint: `${base}/userinfo`,
    // RFC 7591, for hosts without a metadata document (Cursor, MCP Inspector v0.x): public clients
    // only, nothing stored (protocol/registered-clients.ts). Hosts that have a document use it
    // first, when client_id_metadata_document_supported says they may (MCP 2025-11-25).
    registration_endpoint: `${base}${REGISTRATION_PATH}`,
    scopes_supported: SUPPORTED_SCOPES,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    // Public clients, and clients whose metadata document declares private_key_jwt (RFC 7523):
    // no shared secrets. Without this, RFC 8414 implies client_secret_basic, which some clients
    // (MCP hosts among them) then try, or give up on; claude.ai uses its document only with none.
    token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    // An https client_id may be a Client ID Metadata Document (draft-ietf-oauth-client-id-
    // metadata-document), which is how MCP hosts identify themselves.
    client_id_metadata_document_supported: true,
    service_documentation: `${base}/`,
  };
}

// Readable from any origin: clients running in a browser discover the server too.
export const metadataEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  GET: route({
    caller: "anyone",
    answers: "json",
    body: "none",
    redirects: "none",
    run: async (ctx) => json(metadataDocument(ctx.config)),
  }),
});

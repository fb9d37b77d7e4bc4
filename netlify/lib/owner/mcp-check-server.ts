// The MCP check's last part: whether this server's own metadata (RFC 8414, as it serves it now)
// has what the MCP hosts need, each with the hosts it matters to. Read from the live document,
// never assumed: what a deployment serves is what the hosts see.
import type { McpFindingView } from "../pages/connections-view.ts";

const UPDATE = "Update netlify-indieauth to its latest version and deploy again.";

const includes = (value: unknown, item: string) => Array.isArray(value) && value.includes(item);

export function authorizationServerFindings(metadata: Record<string, unknown>): McpFindingView[] {
  const found = (good: boolean, yes: string, no: string): McpFindingView =>
    good ? { ok: true, says: yes } : { ok: false, says: no, fix: UPDATE };
  return [
    found(
      metadata.client_id_metadata_document_supported === true,
      "This server says it accepts client metadata documents (client_id_metadata_document_supported), which is how claude.ai, Claude Code, ChatGPT and VS Code identify themselves.",
      "This server's metadata does not say client_id_metadata_document_supported: true, so hosts register themselves instead, and the sign-in page can no longer name them by their own website.",
    ),
    found(
      typeof metadata.registration_endpoint === "string",
      "This server offers registration (registration_endpoint) for the hosts that have no client metadata document: Cursor, MCP Inspector v0.x, Gemini CLI and Codex.",
      "This server's metadata has no registration_endpoint: Cursor, MCP Inspector v0.x, Gemini CLI and Codex cannot connect.",
    ),
    found(
      includes(metadata.token_endpoint_auth_methods_supported, "none"),
      "This server lists none in token_endpoint_auth_methods_supported: claude.ai uses its client document only then.",
      "This server does not list none in token_endpoint_auth_methods_supported: claude.ai then falls back to dynamic registration.",
    ),
    found(
      includes(metadata.code_challenge_methods_supported, "S256"),
      "This server lists S256 in code_challenge_methods_supported (PKCE): claude.ai, Claude Code and the MCP SDK stop without it.",
      "This server does not list S256 in code_challenge_methods_supported: claude.ai, Claude Code and the MCP SDK stop before sending you to sign in.",
    ),
    found(
      includes(metadata.scopes_supported, "offline_access"),
      "This server lists offline_access in scopes_supported: claude.ai, Claude Code and the MCP SDK ask for it, and stay connected.",
      "This server does not list offline_access in scopes_supported: claude.ai, Claude Code and the MCP SDK ask for it only when it is listed there.",
    ),
    found(
      metadata.authorization_response_iss_parameter_supported === true,
      "This server sends iss with every answer to the app (RFC 9207): ChatGPT and the MCP SDK v2 check it.",
      "This server's metadata does not say authorization_response_iss_parameter_supported: true.",
    ),
  ];
}

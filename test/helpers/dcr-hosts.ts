// The MCP hosts that register themselves (RFC 7591) because they have no Client ID Metadata
// Document, as each one registers and then signs in: its registration body as published or
// captured, the redirect URI it uses at run time, and its authorization request. Read 2026-11-27
// from stored copies of their trackers and sources (nothing fetched live); docs/mcp.md's table
// has the same rows. test/browser/mcp-registration.test.ts runs each through netlify dev and
// Chromium; test/integration/client-registration.test.ts registers each in-process.

/** What a host knows when it builds its request (as in mcp-hosts.ts). */
export interface Discovered {
  resource: string;
  scopes: string[];
  offlineAccess: boolean;
  port: number;
}

export interface RegisteringHost {
  name: string;
  checked: string;
  source: string;
  /** The registration body it POSTs to the registration_endpoint (JSON). */
  registration: (d: Discovered) => Record<string, unknown>;
  /** The name the consent page must quote. */
  clientName: string;
  redirectUri: (d: Discovered) => string;
  /** The authorization request's own parameters (PKCE, state, client_id and redirect_uri are added). */
  authorize: (d: Discovered) => Record<string, string>;
  /** Refresh sends `resource` again. */
  refreshWithResource: boolean;
  /** What the consent page shows as where the answer goes. */
  target: (d: Discovered) => string;
}

/** What the MCP SDK (Inspector's client) adds once the server lists offline_access (SEP-2207). */
const withOffline = (d: Discovered, scope: string) => (d.offlineAccess ? `${scope} offline_access` : scope);

/** Cursor's registration, byte for byte as a Nextcloud MCP connector's notes captured it from
 * Cursor 3.2.16 (2026-08-16), and as soflyy/agent-connector-for-wp #111 (2026-09-11) and
 * erp-mafia/accounted PR #2225 (2026-09-03) quote it: three redirect URIs in one registration. */
export const CURSOR_REGISTRATION = {
  redirect_uris: [
    "cursor://anysphere.cursor-mcp/oauth/callback",
    "https://www.cursor.com/agents/mcp/oauth/callback",
    "http://localhost:8787/callback",
  ],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  client_name: "Cursor",
};

/** MCP Inspector v0.x's client metadata (client/src/lib/auth.ts @8929a431), registered through the
 * MCP SDK, which adds the scope it chose; its page is http://localhost:6274. */
const inspectorRegistration = (d: Discovered) => ({
  redirect_uris: ["http://localhost:6274/oauth/callback", "http://localhost:6274/oauth/callback/debug"],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  client_name: "MCP Inspector",
  client_uri: "https://github.com/modelcontextprotocol/inspector",
  scope: withOffline(d, d.scopes.join(" ")),
});

/** The Cursor cases: its documented redirect URIs, `scope` as its mcp.json `auth.scopes` or the
 * resource's, and `resource` (not documented: both ways). */
const cursor = (
  variant: string,
  redirect: (d: Discovered) => string,
  target: (d: Discovered) => string,
  withResource: boolean,
): RegisteringHost => ({
  name: `Cursor: ${variant}`,
  checked: "3.2.16 (2026-08-16) to 3.14 (2026-09); forum to 2026-08-28",
  source:
    "https://cursor.com/docs/mcp; soflyy/agent-connector-for-wp #111; erp-mafia/accounted #2225; Cursor forum 2026-07-08",
  registration: () => CURSOR_REGISTRATION,
  clientName: "Cursor",
  redirectUri: redirect,
  authorize: (d) => ({ scope: d.scopes.join(" "), ...(withResource ? { resource: d.resource } : {}) }),
  refreshWithResource: withResource,
  target,
});

export const REGISTERING_HOSTS: RegisteringHost[] = [
  cursor(
    "http://localhost:8787/callback (desktop, since 3.10.17), with resource",
    () => "http://localhost:8787/callback",
    () => "localhost:8787, on this computer",
    true,
  ),
  cursor(
    "http://localhost:8787/callback, without resource",
    () => "http://localhost:8787/callback",
    () => "localhost:8787, on this computer",
    false,
  ),
  cursor(
    "cursor://anysphere.cursor-mcp/oauth/callback (before 3.10.17), with resource",
    () => "cursor://anysphere.cursor-mcp/oauth/callback",
    () => "cursor://anysphere.cursor-mcp",
    true,
  ),
  cursor(
    "https://www.cursor.com/agents/mcp/oauth/callback (web and cloud agents), with resource",
    () => "https://www.cursor.com/agents/mcp/oauth/callback",
    () => "www.cursor.com",
    true,
  ),
  {
    name: "MCP Inspector v0.x: /oauth/callback",
    checked: "v0.x at 8929a43",
    source: "modelcontextprotocol/inspector client/src/lib/auth.ts @8929a431; inspector #930",
    registration: inspectorRegistration,
    clientName: "MCP Inspector",
    redirectUri: () => "http://localhost:6274/oauth/callback",
    // The MCP SDK's: the resource's scope, offline_access once listed, then prompt=consent.
    authorize: (d) => ({
      scope: withOffline(d, d.scopes.join(" ")),
      resource: d.resource,
      ...(d.offlineAccess ? { prompt: "consent" } : {}),
    }),
    refreshWithResource: true,
    target: () => "localhost:6274, on this computer",
  },
  {
    name: "MCP Inspector v0.x: /oauth/callback/debug (its OAuth debugger)",
    checked: "v0.x at 8929a43",
    source: "modelcontextprotocol/inspector client/src/lib/auth.ts @8929a431 (DebugInspectorOAuthClientProvider)",
    registration: inspectorRegistration,
    clientName: "MCP Inspector",
    redirectUri: () => "http://localhost:6274/oauth/callback/debug",
    authorize: (d) => ({
      scope: withOffline(d, d.scopes.join(" ")),
      resource: d.resource,
      ...(d.offlineAccess ? { prompt: "consent" } : {}),
    }),
    refreshWithResource: true,
    target: () => "localhost:6274, on this computer",
  },
  {
    // No CIMD (google-gemini/gemini-cli #25724, open since 2026-04-21). Its registration as a
    // server's test fixture captured it (an ephemeral port; 7777 in its docs, PR #7465), scope "".
    name: "Gemini CLI: http://localhost:<port>/oauth/callback",
    checked: "0.19.0 (2025-12) to reports of 2026-04",
    source: "google-gemini/gemini-cli packages/core/src/mcp/oauth-provider.ts; #7465, #14419, #25724",
    registration: (d) => ({
      client_name: "Gemini CLI MCP Client",
      redirect_uris: [`http://localhost:${d.port}/oauth/callback`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "",
    }),
    clientName: "Gemini CLI MCP Client",
    redirectUri: (d) => `http://localhost:${d.port}/oauth/callback`,
    authorize: (d) => ({ scope: d.scopes.join(" "), resource: d.resource }),
    refreshWithResource: true,
    target: (d) => `localhost:${d.port}, on this computer`,
  },
  {
    // Registers even where CIMD is offered (openai/codex #13200, 2026-07-30: 0.147.0-alpha.1 fails
    // against a CIMD-only server; CIMD only behind an app-server option, PR #22531, open).
    name: "Codex CLI: http://127.0.0.1:<port>/callback/<id>",
    checked: "0.147 (2026-07/09)",
    source: "openai/codex #13200, #22531; elmohq/elmo PR #684 (registration captured 2026-09-01)",
    registration: (d) => ({
      client_name: "Codex",
      redirect_uris: [`http://127.0.0.1:${d.port}/callback/mcp-blog`],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    }),
    clientName: "Codex",
    redirectUri: (d) => `http://127.0.0.1:${d.port}/callback/mcp-blog`,
    authorize: (d) => ({ scope: d.scopes.join(" "), resource: d.resource }),
    refreshWithResource: true,
    target: (d) => `127.0.0.1:${d.port}, on this computer`,
  },
];

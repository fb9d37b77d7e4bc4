// The MCP hosts people use, as each one really signs in: its published Client ID Metadata
// Document byte for byte (served under its own address, https://claude.ai/..., by the test host:
// see test-hosts.ts), the redirect URI it uses at run time, the exact authorization, token and
// refresh parameters it sends. Every fact and source is in docs/research/mcp-hosts.md (checked
// 2026-11-25 from stored copies; "obs" there means another party saw it on the wire).
// test/browser/mcp-hosts.test.ts runs each entry through netlify dev and Chromium.

/** What a host knows when it builds its request: the resource and what discovery told it. */
export interface Discovered {
  /** The MCP URL (RFC 8707 `resource`). */
  resource: string;
  /** The resource's RFC 9728 `scopes_supported` (the blog's challenge names the same). */
  scopes: string[];
  /** Whether the authorization server's metadata lists `offline_access`. */
  offlineAccess: boolean;
  /** An ephemeral loopback port, for a host that listens on one. */
  port: number;
}

/** What a host reads of the server's metadata to choose how it identifies itself. */
export interface IdentityOffer {
  client_id_metadata_document_supported?: unknown;
  token_endpoint_auth_methods_supported?: unknown;
  registration_endpoint?: unknown;
}
export type IdentityChoice = "document" | "registration" | "pre-registered" | "none";

/** The MCP SDK's order (client/auth.ts, read in node_modules at 1.32.2; Claude Code's "Incompatible
 * auth server: does not support dynamic client registration" is its message, render-oss/render-mcp-
 * server #25, 2026-08-03): its document when the server says client_id_metadata_document_supported,
 * registration only otherwise. ChatGPT ("prioritises CIMD when the AS advertises
 * client_id_metadata_document_supported: true", OpenAI's docs as quoted in cbcoutinho/nextcloud-mcp-
 * server #1470) and VS Code (CIMD when advertised, else DCR: src/vs/base/common/oauth.ts,
 * microsoft/vscode-docs PR #8689) choose the same way. */
export function documentFirst(as: IdentityOffer): IdentityChoice {
  if (as.client_id_metadata_document_supported === true) return "document";
  return typeof as.registration_endpoint === "string" ? "registration" : "none";
}

/** claude.ai's: its document only when the server also lists none (a URL-identified client is
 * public), else registration (Anthropic's connector docs; brendanlong/lion-reader PR #977). */
export function claudeChoice(as: IdentityOffer): IdentityChoice {
  const none =
    Array.isArray(as.token_endpoint_auth_methods_supported) &&
    as.token_endpoint_auth_methods_supported.includes("none");
  return none ? documentFirst(as) : typeof as.registration_endpoint === "string" ? "registration" : "none";
}

export interface HostCase {
  /** The test's name: host, and the variant. */
  name: string;
  /** Version or date of what the emulation copies. */
  checked: string;
  /** Where the document (or the workaround) comes from. */
  source: string;
  /** The client_id; an https URL is served `document` from the test host. */
  clientId: string;
  document?: string;
  /** The client's name the consent page shows (from the document). */
  clientName?: string;
  redirectUri: (d: Discovered) => string;
  /** The authorization request's own parameters (PKCE, state, client_id and redirect_uri are added). */
  authorize: (d: Discovered) => Record<string, string>;
  state?: () => string;
  /** ChatGPT authenticates with a client assertion (RFC 7523) when the server lists the method. */
  auth: "none" | "private_key_jwt";
  /** Refresh: the host sends `resource` again (none of them sends `scope`). */
  refreshWithResource: boolean;
  /** The scopes the consent page must show ticked; by default what was asked. */
  ticked?: (d: Discovered) => string[];
  /** How it chooses its identity from the server's metadata (its published rule). */
  identity: (as: IdentityOffer) => IdentityChoice;
}

const random = () => Math.random().toString(36).slice(2, 12);
/** What claude.ai, Claude Code and the MCP SDK add once the server lists it (SEP-2207). */
const withOffline = (d: Discovered, scope: string) => (d.offlineAccess ? `${scope} offline_access` : scope);

// claude.ai's document, verbatim: sebadob/rauthy #1644 (2026-07-16), and a harness that
// transcribed it "field for field, retrieved 2026-08-14". URL: https://claude.ai/oauth/mcp-oauth-client-metadata
const CLAUDE_AI = `{"client_id":"https://claude.ai/oauth/mcp-oauth-client-metadata","client_name":"Claude","client_uri":"https://claude.ai","redirect_uris":["https://claude.ai/api/mcp/auth_callback"],"grant_types":["authorization_code","refresh_token","urn:ietf:params:oauth:grant-type:jwt-bearer"],"response_types":["code"],"token_endpoint_auth_method":"none"}`;
// Claude Code's, as fetched 2026-09-08 (research notes, index id 70746813673).
const CLAUDE_CODE = `{"client_id":"https://claude.ai/oauth/claude-code-client-metadata","client_name":"Claude Code","client_uri":"https://claude.ai","redirect_uris":["http://localhost/callback","http://127.0.0.1/callback"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`;
// ChatGPT's stable document, fetched 2026-09-08; byte-identical in django-oauth-toolkit #1845 (2026-08-26).
const CHATGPT = `{"client_id":"https://chatgpt.com/oauth/client.json","client_uri":"https://chatgpt.com/","redirect_uris":["https://chatgpt.com/connector_platform_oauth_redirect"],"token_endpoint_auth_method":"private_key_jwt","token_endpoint_auth_methods_supported":["none","private_key_jwt"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"client_name":"ChatGPT","logo_uri":"https://persistent.oaistatic.com/sonic/misc/openai-logo.png","token_endpoint_auth_signing_alg":"RS256","jwks_uri":"https://chatgpt.com/oauth/jwks.json"}`;
// A per-connector id seen in Altinity/altinity-mcp #118 (2026-05-15); its document is the stable one
// with its own client_id and redirect URI.
const CONNECTOR = "kDmjx77UnKOM";
const CHATGPT_CONNECTOR = CHATGPT.replace(
  "https://chatgpt.com/oauth/client.json",
  `https://chatgpt.com/oauth/${CONNECTOR}/client.json`,
).replace("https://chatgpt.com/connector_platform_oauth_redirect", `https://chatgpt.com/connector/oauth/${CONNECTOR}`);
// VS Code's, fetched 2026-09-08 (notes 70746813673); URL from microsoft/vscode #298300.
const VSCODE = `{"client_name":"Visual Studio Code","logo_uri":"https://code.visualstudio.com/assets/branding/code-stable.png","grant_types":["authorization_code","refresh_token","urn:ietf:params:oauth:grant-type:device_code"],"response_types":["code"],"token_endpoint_auth_method":"none","application_type":"native","client_id":"https://vscode.dev/oauth/client-metadata.json","client_uri":"https://vscode.dev/product","redirect_uris":["http://127.0.0.1:33418/","https://vscode.dev/redirect"]}`;
// MCP Inspector publishes no document: v2's --client-metadata-url takes one the user publishes.
// This is its v0.x client metadata (client/src/lib/auth.ts @8929a431) with the v2.8.0 callback
// (qyl.mcp README, 2026-09-30), on the owner's own https site.
const INSPECTOR_ID = "https://jane.example/mcp-inspector.json";
const INSPECTOR = JSON.stringify({
  client_id: INSPECTOR_ID,
  client_name: "MCP Inspector",
  client_uri: "https://github.com/modelcontextprotocol/inspector",
  redirect_uris: [
    "http://127.0.0.1:6274/oauth/callback",
    "http://localhost:6274/oauth/callback",
    "http://localhost:6274/oauth/callback/debug",
  ],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
});

/** The host documents the test host serves, by URL. */
export const DOCUMENTS: Record<string, string> = {
  "https://claude.ai/oauth/mcp-oauth-client-metadata": CLAUDE_AI,
  "https://claude.ai/oauth/claude-code-client-metadata": CLAUDE_CODE,
  "https://chatgpt.com/oauth/client.json": CHATGPT,
  [`https://chatgpt.com/oauth/${CONNECTOR}/client.json`]: CHATGPT_CONNECTOR,
  "https://vscode.dev/oauth/client-metadata.json": VSCODE,
  [INSPECTOR_ID]: INSPECTOR,
};
export const HOST_NAMES = [
  "claude.ai",
  "chatgpt.com",
  "vscode.dev",
  "jane.example",
  "persistent.oaistatic.com",
  "code.visualstudio.com",
];
export const CHATGPT_JWKS_URI = "https://chatgpt.com/oauth/jwks.json";
/** The key id style of ChatGPT's published key (engram-app/Engram #1633, 2026-09-15). */
export const CHATGPT_KID = "cimd-20260428030119";

const doc = (clientId: string) => ({
  clientId,
  document: DOCUMENTS[clientId],
  clientName: (JSON.parse(DOCUMENTS[clientId]!) as { client_name: string }).client_name,
});

export const HOSTS: HostCase[] = [
  {
    name: "claude.ai: the resource's scope, offline_access once listed, prompt=consent",
    checked: "docs 2026-08/09, reports to 2026-09-16",
    source: "https://claude.com/docs/connectors/building/authentication; anthropics/claude-ai-mcp #96, #94804",
    ...doc("https://claude.ai/oauth/mcp-oauth-client-metadata"),
    redirectUri: () => "https://claude.ai/api/mcp/auth_callback",
    authorize: (d) => ({ scope: withOffline(d, d.scopes.join(" ")), resource: d.resource, prompt: "consent" }),
    auth: "none",
    refreshWithResource: true,
    identity: claudeChoice,
  },
  {
    // The URL captured in anthropics/claude-ai-mcp #96 (2026-03-13): the resource named no scope,
    // so only the appended one, after a space (#453, open).
    name: "claude.ai: scope=+offline_access, the resource's default scope",
    checked: "2026-03-13 (#96), 2026-06-12 (#453)",
    source: "anthropics/claude-ai-mcp #96, #453",
    ...doc("https://claude.ai/oauth/mcp-oauth-client-metadata"),
    redirectUri: () => "https://claude.ai/api/mcp/auth_callback",
    authorize: (d) => ({ scope: " offline_access", resource: d.resource, prompt: "consent" }),
    auth: "none",
    refreshWithResource: true,
    identity: claudeChoice,
    ticked: (d) => [...d.scopes, "offline_access"],
  },
  {
    name: "Claude Code: http://localhost:<ephemeral port>/callback, the challenge's scope",
    checked: "2.1.80 to 2.1.285, reports to 2026-09-28",
    source: "https://code.claude.com/docs/en/mcp; anthropics/claude-code #90370, #89862",
    ...doc("https://claude.ai/oauth/claude-code-client-metadata"),
    redirectUri: (d) => `http://localhost:${d.port}/callback`,
    // prompt=consent comes with offline_access (#10572, #94804).
    authorize: (d) => ({
      scope: withOffline(d, d.scopes.join(" ")),
      resource: d.resource,
      ...(d.offlineAccess ? { prompt: "consent" } : {}),
    }),
    auth: "none",
    refreshWithResource: true,
    identity: documentFirst,
  },
  {
    // Neither the challenge nor the resource metadata named a scope (#90190): no scope parameter.
    name: "Claude Code: http://127.0.0.1:<port>/callback, no scope at all",
    checked: "2.1.246 (#90190, 2026-08-27)",
    source: "anthropics/claude-code #90190; maintainer on #4540",
    ...doc("https://claude.ai/oauth/claude-code-client-metadata"),
    redirectUri: (d) => `http://127.0.0.1:${d.port}/callback`,
    authorize: (d) => ({ resource: d.resource }),
    auth: "none",
    // Refreshes without resource, as 2.1.251 was reported to (#90497): the grant keeps its audience.
    refreshWithResource: false,
    identity: documentFirst,
    ticked: (d) => d.scopes,
  },
  {
    name: "ChatGPT: the stable client.json, private_key_jwt",
    checked: "docs and reports 2025-09 to 2026-10",
    source: "https://developers.openai.com/apps-sdk/build/auth; django-oauth-toolkit #1845",
    ...doc("https://chatgpt.com/oauth/client.json"),
    redirectUri: () => "https://chatgpt.com/connector_platform_oauth_redirect",
    authorize: (d) => ({ scope: d.scopes.join(" "), resource: d.resource }),
    state: () => `oauth_s_${random()}`,
    auth: "private_key_jwt",
    refreshWithResource: true,
    identity: documentFirst,
  },
  {
    name: "ChatGPT: a per-connector client.json, /connector/oauth/<id>",
    checked: "2026-05-15 (altinity-mcp #118)",
    source: "Altinity/altinity-mcp #118; koala73/worldmonitor PR #8305",
    ...doc(`https://chatgpt.com/oauth/${CONNECTOR}/client.json`),
    redirectUri: () => `https://chatgpt.com/connector/oauth/${CONNECTOR}`,
    authorize: (d) => ({ scope: d.scopes.join(" "), resource: d.resource }),
    state: () => `oauth_s_${random()}`,
    auth: "private_key_jwt",
    refreshWithResource: true,
    identity: documentFirst,
  },
  {
    // The request seen 2026-03-30 (research notes 53772236371): no prompt, no offline_access.
    name: "VS Code: http://127.0.0.1:33418/",
    checked: "source 2025-10 to 2026, reports to 2026-09",
    source: "microsoft/vscode #298300, #278512, src/vs/base/common/oauth.ts",
    ...doc("https://vscode.dev/oauth/client-metadata.json"),
    redirectUri: () => "http://127.0.0.1:33418/",
    authorize: (d) => ({ scope: d.scopes.join(" "), resource: d.resource }),
    auth: "none",
    refreshWithResource: true,
    identity: documentFirst,
  },
  {
    name: "MCP Inspector v2: --client-metadata-url on the owner's site",
    checked: "v2.8.0 (2026-09/10)",
    source: "modelcontextprotocol/modelcontextprotocol PR #3143 (Inspector v2 docs)",
    ...doc(INSPECTOR_ID),
    redirectUri: () => "http://127.0.0.1:6274/oauth/callback",
    // The TS SDK's: the challenge's scope, offline_access once listed, then prompt=consent.
    authorize: (d) => ({
      scope: withOffline(d, d.scopes.join(" ")),
      resource: d.resource,
      ...(d.offlineAccess ? { prompt: "consent" } : {}),
    }),
    auth: "none",
    refreshWithResource: true,
    identity: documentFirst,
  },
  {
    // Cursor has no CIMD and this server no DCR: a static client in mcp.json, `auth.CLIENT_ID`,
    // whose id is a loopback URL on its callback's origin (the research's proposed workaround).
    name: "Cursor: static auth.CLIENT_ID http://localhost:8787/",
    checked: "docs and forum to 2026-08-28 (3.10.17)",
    source: "https://cursor.com/docs/mcp; Cursor forum, 2026-07-08",
    clientId: "http://localhost:8787/",
    redirectUri: () => "http://localhost:8787/callback",
    authorize: (d) => ({ scope: d.scopes.join(" "), resource: d.resource }),
    auth: "none",
    refreshWithResource: true,
    identity: () => "pre-registered",
  },
];

// The console's "Check my MCP server": what an MCP host sees when it first meets the owner's MCP
// URL, in plain words with the fix for each finding (docs/account.md says what is checked). Fetched
// through the address guard (public https; loopback only in local development), one request each,
// no redirect followed, within a time budget and a size cap.
import { loopbackOnlyPolicy, publicOnlyPolicy, type AddressPolicy } from "../clients/address-guard.ts";
import { probe, type ProbeAnswer } from "../clients/probe.ts";
import type { McpCheckView, McpFindingView } from "../pages/connections-view.ts";
import { isLoopbackHost, urlOf } from "../core/urls.ts";
import { logText } from "./connection-log.ts";
import { authorizationServerFindings } from "./mcp-check-server.ts";
import { jsonOf } from "../core/json.ts";
import { resourceMetadataUrl } from "../core/resource-metadata-url.ts";

/** Each of the two requests; both within a function's 10 seconds. */
const TIMEOUT_MS = 4000;
const MAX_BYTES = 64 * 1024;
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "netlify-indieauth check", version: "1" },
  },
});
const REQUIRE_TOKEN =
  'Protect the function with requireToken(request, { resource: "<your MCP URL>", scope: "…" }) from netlify-indieauth/resource, and return its Response as it is.';

interface McpCheckInput {
  url: string;
  issuer: string;
  development: boolean;
  /** This server's RFC 8414 metadata, as it serves it now. */
  serverMetadata: Record<string, unknown>;
}

export function checkableUrl(
  raw: string,
  development: boolean,
): { ok: true; url: URL; policy: () => Promise<AddressPolicy> } | { ok: false; reason: string } {
  const url = urlOf(raw.trim());
  if (!url) return { ok: false, reason: "Enter your MCP server's full URL, such as https://jane.example/mcp." };
  if (raw.length > 2048 || url.username || url.password || url.hash)
    return { ok: false, reason: "Enter the MCP URL without a user name, password or #fragment." };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isLoopbackHost(url.hostname) || host === "localhost" || host === "::1") {
    if (!development)
      return {
        ok: false,
        reason:
          "That URL is on this machine: hosts such as claude.ai connect from the internet, so give your MCP server's public https URL.",
      };
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return { ok: false, reason: "The MCP URL must start with https://." };
    return { ok: true, url, policy: async () => loopbackOnlyPolicy };
  }
  if (url.protocol !== "https:")
    return { ok: false, reason: "The MCP URL must start with https:// (hosts refuse anything else)." };
  return { ok: true, url, policy: publicOnlyPolicy };
}

const ok = (says: string): McpFindingView => ({ ok: true, says });
const problem = (says: string, fix: string): McpFindingView => ({ ok: false, says, fix });
const shown = (value: unknown) =>
  logText(typeof value === "string" ? value : value === undefined ? "nothing" : JSON.stringify(value));

/** The parameters of the Bearer challenge, or null when there is none. */
export function bearerChallenge(header: string | undefined): Record<string, string> | null {
  const start = header?.search(/(^|,)\s*Bearer(\s|$)/i) ?? -1;
  if (!header || start < 0) return null;
  const rest = header.slice(start).replace(/^,?\s*Bearer/i, "");
  const params: Record<string, string> = {};
  for (const match of rest.matchAll(/([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g)) {
    params[match[1]!.toLowerCase()] ??= match[2] !== undefined ? match[2].replace(/\\(.)/g, "$1") : match[3]!;
  }
  return params;
}

/** Where MCP hosts look for the MCP URL's metadata (RFC 9728 §3.1): the MCP SDK builds it from the path alone, query left out. */
export function wellKnownMetadataUrl(resource: URL): string {
  return resourceMetadataUrl(resource, "");
}

async function ask(
  url: URL,
  policy: AddressPolicy,
  init: { method?: "GET" | "POST"; headers: Record<string, string>; body?: string },
): Promise<ProbeAnswer | string> {
  try {
    return await probe(url, { policy, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES, ...init });
  } catch (error) {
    return logText(error instanceof Error ? error.message : "no answer");
  }
}

/** The MCP URL itself, without a token: the 401 and its challenge. Answers the findings and
 * where the metadata should be. */
async function challengeFindings(url: URL, policy: AddressPolicy, findings: McpFindingView[]): Promise<string> {
  const derived = wellKnownMetadataUrl(url);
  const fail = (says: string, fix: string) => {
    findings.push(problem(says, fix));
    return derived;
  };
  const answer = await ask(url, policy, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: INITIALIZE,
  });
  if (typeof answer === "string")
    return fail(
      `Your MCP server could not be reached (${answer}).`,
      "Check the URL, and that the site is deployed and public: hosts connect from their own servers.",
    );
  if (answer.status >= 200 && answer.status < 300)
    return fail(
      `Your MCP server answered ${answer.status} without a token: it is not protected, and no host will ask you to sign in.`,
      REQUIRE_TOKEN,
    );
  if (answer.status >= 300 && answer.status < 400)
    return fail(
      `Your MCP server answered ${answer.status}, a redirect to ${shown(answer.headers.location ?? "nowhere")}.`,
      "Give the hosts the final URL: they do not follow redirects to an MCP server.",
    );
  if (answer.status !== 401)
    return fail(
      `Your MCP server answered ${answer.status} to a request without a token, where hosts expect 401.`,
      REQUIRE_TOKEN,
    );
  findings.push(ok("Your MCP server answers 401 to a request without a token."));
  const challenge = bearerChallenge(answer.headers["www-authenticate"]);
  if (!challenge)
    return fail(
      "The 401 has no WWW-Authenticate: Bearer challenge, so hosts cannot tell where to sign in (claude.ai stops here).",
      "Return requireToken's Response as it is: it carries WWW-Authenticate: Bearer with resource_metadata. If you build the 401 yourself, add that header.",
    );
  const named = challenge.resource_metadata;
  if (!named)
    return fail(
      "The 401's challenge names no resource_metadata: hosts must guess where your protected-resource metadata is.",
      "Pass resource to requireToken, so that its challenge names the metadata's URL.",
    );
  try {
    const at = new URL(named, url).href;
    findings.push(ok(`The 401's challenge names the resource metadata: ${logText(at)}.`));
    return at;
  } catch {
    return fail(
      `The challenge's resource_metadata is not a URL: ${shown(named)}.`,
      "resource_metadata must be the absolute URL of your protected-resource metadata.",
    );
  }
}

/** The RFC 9728 document: found, names this issuer, says resource = the URL, lists scopes. */
async function metadataFindings(input: McpCheckInput, url: URL, at: string, findings: McpFindingView[]): Promise<void> {
  const serve = `Serve protectedResourceMetadataHandler from netlify-indieauth/resource at ${logText(wellKnownMetadataUrl(url))}.`;
  const fail = (says: string, fix = serve) => void findings.push(problem(says, fix));
  const checked = checkableUrl(at, input.development);
  if (!checked.ok) return fail(`The resource metadata's address cannot be checked: ${checked.reason}`);
  const answer = await ask(checked.url, await checked.policy(), { headers: { Accept: "application/json" } });
  if (typeof answer === "string")
    return fail(`The protected-resource metadata (RFC 9728) could not be read at ${logText(at)} (${answer}).`);
  if (answer.status !== 200)
    return fail(`There is no protected-resource metadata (RFC 9728) at ${logText(at)}: it answered ${answer.status}.`);
  const parsed = jsonOf(answer.body);
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return fail(`The document at ${logText(at)} is not a JSON object.`);
  const doc = parsed as Record<string, unknown>;
  findings.push(ok(`The protected-resource metadata is at ${logText(at)}.`));
  const servers = Array.isArray(doc.authorization_servers) ? doc.authorization_servers : [];
  if (servers[0] === input.issuer) findings.push(ok(`Its authorization_servers names this server (${input.issuer}).`));
  else if (servers.includes(input.issuer))
    fail(
      `Its authorization_servers names this server, but not first (${shown(servers[0])} is): claude.ai uses only the first.`,
      `Put ${input.issuer} first.`,
    );
  else
    fail(
      `Its authorization_servers names ${shown(doc.authorization_servers)}, not this server (${input.issuer}): hosts will sign in elsewhere, or stop.`,
      `authorization_servers must be ["${input.issuer}"], exactly, trailing slash included (the resource API writes it so when BASE_URL is this server's address).`,
    );
  if (doc.resource === input.url.trim() || doc.resource === url.href)
    findings.push(ok(`Its resource is exactly your MCP URL.`));
  else
    fail(
      `Its resource is ${shown(doc.resource)}, not your MCP URL ${logText(url.href)}: VS Code stops there, and tokens will carry the wrong audience.`,
      "Give requireToken and protectedResourceMetadataHandler the MCP URL exactly as hosts are given it (path included, same trailing slash).",
    );
  const scopes = Array.isArray(doc.scopes_supported)
    ? doc.scopes_supported.filter((s): s is string => typeof s === "string")
    : [];
  if (scopes.length === 0)
    fail(
      "It lists no scopes (scopes_supported): Claude Code then asks for none, and other hosts for every scope this server knows.",
      'List the scopes your MCP server\'s tools need, e.g. scopes_supported: ["create"] (the scopes of your ResourceDescription).',
    );
  else findings.push(ok(`It lists the scopes hosts will ask for: ${logText(scopes.join(" "))}.`));
  if (scopes.includes("offline_access"))
    fail(
      "It lists offline_access among the resource's scopes: hosts then ask for it as if your server needed it.",
      "Leave offline_access out of the resource's scopes; this server's own metadata is where hosts look for it.",
    );
}

export async function checkMcpServer(input: McpCheckInput): Promise<McpCheckView> {
  const checked = checkableUrl(input.url, input.development);
  if (!checked.ok) throw new TypeError(checked.reason);
  const findings: McpFindingView[] = [];
  const policy = await checked.policy();
  const at = await challengeFindings(checked.url, policy, findings);
  await metadataFindings(input, checked.url, at, findings);
  findings.push(...authorizationServerFindings(input.serverMetadata));
  return { url: logText(checked.url.href), ok: findings.every((f) => f.ok), findings };
}

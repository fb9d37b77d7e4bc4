// The owner console's connection doctor (/indieauth/api/account/connections and /mcp-check):
// each app's last attempts to connect, read only when the owner opens the view (a bounded
// number of records: owner/connection-log.ts), and the check of the owner's MCP server. Their
// routes (account.ts) need a live session; the check is a same-origin POST like every console action.
import { InvalidRequest, TooManyAttempts } from "../errors.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { readConnectionLogs } from "../owner/connection-log.ts";
import { connectionView } from "../owner/connection-words.ts";
import { checkableUrl, checkMcpServer } from "../owner/mcp-check.ts";
import { claimMcpCheck } from "../owner/mcp-check-limit.ts";
import type { ConnectionsView } from "../pages/connections-view.ts";
import { metadataDocument } from "./metadata.ts";

export async function connections(ctx: RequestContext): Promise<Response> {
  const logs = await readConnectionLogs(ctx.rt.store, ctx.rt.now());
  const view: ConnectionsView = { clients: logs.map(connectionView) };
  return json(view);
}

export async function mcpCheck(ctx: RequestContext<"url">): Promise<Response> {
  const { config, rt } = ctx;
  const { issuer, development } = config;
  const url = (await ctx.form()).get("url") ?? "";
  const checked = checkableUrl(url, development);
  if (!checked.ok) throw new InvalidRequest(checked.reason);
  const wait = await claimMcpCheck(rt.store, rt.now());
  if (wait > 0)
    throw new TooManyAttempts(`Several checks ran this minute already. Try again in ${wait} seconds.`, wait);
  return json(await checkMcpServer({ url, issuer, development, serverMetadata: metadataDocument(config) }));
}

// NOTIFY_URL and NOTIFY_FORMAT: where the owner's alerts go (owner/alerts.ts), read with the
// rest of the environment (config.ts). The URL is a secret of its own (whoever holds a Slack or
// Discord webhook URL can post there): it is never shown, only its host.
import { urlOf } from "../core/urls.ts";
import { reporter, type Env, type Found } from "./config-values.ts";

/** The shape of the message body; see owner/alert-messages.ts. */
export const NOTIFY_FORMATS = ["ntfy", "slack", "discord", "matrix", "json"] as const;
export type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

export interface NotifySettings {
  url: string;
  format: NotifyFormat;
  /** A receiver on this machine (local development only): the address guard lets loopback
   * through for it, and nothing else. */
  loopback: boolean;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

function isLoopback(url: URL): boolean {
  return (
    LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(url.hostname)
  );
}

/** Without NOTIFY_FORMAT, the shape follows the host: Slack's and Discord's webhook hosts,
 * ntfy.sh or a host named ntfy.*; anything else gets the generic JSON body. */
function formatForUrl(url: URL): NotifyFormat {
  const host = url.hostname.toLowerCase();
  if (host === "hooks.slack.com") return "slack";
  if (
    (host === "discord.com" || host === "discordapp.com" || host.endsWith(".discord.com")) &&
    url.pathname.startsWith("/api/webhooks/")
  )
    return "discord";
  if (host === "ntfy.sh" || host.startsWith("ntfy.")) return "ntfy";
  return "json";
}

/** The alert settings, or undefined when NOTIFY_URL is unset (alerts off) or wrong (a problem). */
export function readNotify(env: Env, development: boolean, problems: Found[]): NotifySettings | undefined {
  const raw = env.NOTIFY_URL?.trim();
  const rawFormat = env.NOTIFY_FORMAT?.trim().toLowerCase();
  let format: NotifyFormat | undefined;
  if (rawFormat) {
    format = NOTIFY_FORMATS.find((known) => known === rawFormat);
    if (!format)
      problems.push({
        variable: "NOTIFY_FORMAT",
        message: `NOTIFY_FORMAT must be one of ${NOTIFY_FORMATS.join(", ")}`,
      });
  }
  if (!raw) return undefined;
  const refused = reporter(problems, "NOTIFY_URL");
  const url = urlOf(raw);
  if (!url) return refused("NOTIFY_URL is not a URL");
  if (url.username || url.password) return refused("NOTIFY_URL must not carry a user name or password (user:pass@)");
  const loopback = isLoopback(url);
  if (loopback && !development)
    return refused("NOTIFY_URL points at this machine (loopback), which only local development allows");
  if (url.protocol !== "https:" && !(loopback && url.protocol === "http:"))
    return refused("NOTIFY_URL must use https (plain http only for a receiver on this machine in local development)");
  if (rawFormat && !format) return undefined;
  return { url: url.href, format: format ?? formatForUrl(url), loopback };
}

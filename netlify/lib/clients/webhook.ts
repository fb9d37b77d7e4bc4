// POSTing a short message to the owner's webhook (owner/alerts.ts), behind the same address
// guard as client fetches (safe-fetch.ts): every address the host resolves to is checked, and
// the socket connects to exactly those. One request, no redirect followed, a time budget for
// the whole exchange; the receiver's answer is judged by its status alone and never read.
import { ipLiteralOf, type AddressPolicy } from "./address-guard.ts";
import { FetchFailed, FetchRefused, guardedLookup } from "./safe-fetch.ts";

export interface WebhookMessage {
  contentType: string;
  body: string;
  /** Extra headers some receivers read (ntfy's Title, Tags, Priority). */
  headers?: Record<string, string>;
}

interface WebhookOptions {
  policy: AddressPolicy;
  timeoutMs: number;
}

const USER_AGENT = "netlify-indieauth (alerts)";

/** node:http, node:https and node:dns, loaded on the first alert: out of every cold start. */
async function loadNetwork() {
  const [{ default: http }, { default: https }, { lookup }] = await Promise.all([import("node:http"), import("node:https"), import("node:dns")]);
  return { http, https, lookup };
}

/** Sends the message; resolves with the receiver's 2xx status, or rejects with FetchRefused
 * (address, scheme) or FetchFailed (network, time, any other status). */
export async function postWebhook(url: URL, message: WebhookMessage, options: WebhookOptions): Promise<number> {
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchRefused(`the ${url.protocol} scheme is not allowed`);
  // net.connect skips `lookup` for IP literals, so those are checked here.
  const literal = ipLiteralOf(url.hostname);
  if (literal !== null && !options.policy(literal)) throw new FetchRefused(`the address ${literal} is not allowed`);
  const network = await loadNetwork();
  const transport = url.protocol === "https:" ? network.https : network.http;
  const body = Buffer.from(message.body, "utf8");

  return new Promise<number>((resolve, reject) => {
    // Built field by field so that userinfo in the URL is never sent as Basic auth.
    const req = transport.request({
      protocol: url.protocol,
      hostname: literal ?? url.hostname,
      port: url.port === "" ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      headers: { ...message.headers, "Content-Type": message.contentType, "Content-Length": String(body.length), "User-Agent": USER_AGENT },
      agent: false,
      lookup: guardedLookup(options.policy, network.lookup),
    });
    const timer = setTimeout(() => req.destroy(new FetchFailed("the receiver did not answer in time")), options.timeoutMs);
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error instanceof FetchRefused || error instanceof FetchFailed ? error : new FetchFailed(`could not reach the receiver: ${error.message}`));
    });
    req.on("response", (res) => {
      clearTimeout(timer);
      const status = res.statusCode ?? 0;
      res.destroy();
      if (status >= 200 && status <= 299) resolve(status);
      else reject(new FetchFailed(`the receiver answered ${status}`));
    });
    req.end(body);
  });
}

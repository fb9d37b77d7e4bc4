// POSTing a short message to the owner's webhook (owner/alerts.ts) through probe.ts, behind the
// address guard of client fetches; the receiver's answer is judged by its status alone.
import type { AddressPolicy } from "./address-guard.ts";
import { probe } from "./probe.ts";
import { FetchFailed } from "./safe-fetch.ts";

export interface WebhookMessage {
  contentType: string;
  body: string;
  /** Extra headers some receivers read (ntfy's Title, Tags, Priority). */
  headers?: Record<string, string>;
}

const USER_AGENT = "netlify-indieauth (alerts)";

/** Sends the message; resolves with the receiver's 2xx status, or rejects with FetchRefused
 * (address, scheme) or FetchFailed (network, time, any other status). Its answer's body is not
 * read (probe.ts stops at its first byte). */
export async function postWebhook(
  url: URL,
  message: WebhookMessage,
  options: { policy: AddressPolicy; timeoutMs: number },
): Promise<number> {
  const { status } = await probe(url, {
    policy: options.policy,
    method: "POST",
    headers: { ...message.headers, "Content-Type": message.contentType },
    body: message.body,
    timeoutMs: options.timeoutMs,
    maxBytes: 0,
    userAgent: USER_AGENT,
  }).catch((error: unknown) => {
    throw error instanceof FetchFailed ? new FetchFailed(`could not reach the receiver: ${error.message}`) : error;
  });
  if (status >= 200 && status <= 299) return status;
  throw new FetchFailed(`the receiver answered ${status}`);
}

// The owner hears about it: a short message to NOTIFY_URL for the server's alert events
// (owner/event-subscribers.ts). Optional, and never in the way (docs/security.md, "Alerts"): at most
// one per kind per minute across instances (a conditional write per kind), through the address
// guard, never holding up or failing the request that caused it. Words: alert-messages.ts.
import { loopbackOnlyPolicy, publicOnlyPolicy } from "../clients/address-guard.ts";
import { postWebhook } from "../clients/webhook.ts";
import type { Config } from "../platform/config.ts";
import { RECORDS } from "../platform/records.ts";
import type { Runtime } from "../platform/runtime.ts";
import { ALERTS, webhookMessage, type AlertEvent, type AlertKind } from "./alert-messages.ts";
import type { ServerEvent } from "../platform/events.ts";
import { afterAnswer } from "../platform/after-answer.ts";
import { ALERT_INTERVAL_MS } from "../core/policy.ts";

export type { AlertEvent, AlertKind } from "./alert-messages.ts";

/** The longest a request waits for its alert when the platform cannot finish it afterwards. */
export const ALERT_DEADLINE_MS = 1500;
/** The receiver's whole budget (finished after the response where waitUntil exists). */
const SEND_TIMEOUT_MS = 5000;

/** What alert() needs (a RequestContext has it all). */
export interface AlertContext {
  rt: Pick<Runtime, "store" | "now">;
  config: Pick<Config, "notify" | "me">;
  /** Netlify's context.waitUntil for this request, when the platform offers it. */
  requester?: { waitUntil?: ((work: Promise<unknown>) => void) | undefined };
}

export type AlertOutcome =
  | { sent: true }
  | { sent: false; reason: "off" | "rate-limited" | "failed"; retryAfterSeconds?: number; detail?: string };

interface AlertSent {
  kind: "alert-sent";
  alert: AlertKind;
  sentAt: number;
  expiresAt: number;
}

/** Claims this minute's message of the kind: true for the one caller that may send it. */
async function claim(
  ctx: AlertContext,
  kind: AlertKind,
  now: number,
): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
  const key = RECORDS.alertSent.key(kind);
  const { value, version } = await ctx.rt.store.getVersioned<AlertSent>(key);
  const busyFor = (until: number) => ({
    ok: false as const,
    retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)),
  });
  if (value?.kind === "alert-sent" && value.expiresAt > now) return busyFor(value.expiresAt);
  const record: AlertSent = { kind: "alert-sent", alert: kind, sentAt: now, expiresAt: now + ALERT_INTERVAL_MS };
  return (await ctx.rt.store.setIfUnchanged(key, record, version)) ? { ok: true } : busyFor(record.expiresAt);
}

async function deliver(ctx: AlertContext, event: AlertEvent): Promise<AlertOutcome> {
  const notify = ctx.config.notify;
  if (!notify) return { sent: false, reason: "off" };
  const now = ctx.rt.now();
  try {
    const claimed = await claim(ctx, event.type, now);
    if (!claimed.ok) return { sent: false, reason: "rate-limited", retryAfterSeconds: claimed.retryAfterSeconds };
    const policy = notify.loopback ? loopbackOnlyPolicy : await publicOnlyPolicy();
    await postWebhook(new URL(notify.url), webhookMessage(notify.format, event, { me: ctx.config.me, at: now }), {
      policy,
      timeoutMs: SEND_TIMEOUT_MS,
    });
    return { sent: true };
  } catch (error) {
    // The message may name the receiver's host, never its URL (which is a secret of its own).
    const detail = error instanceof Error ? error.message : "unknown error";
    console.warn(`indieauth: the ${event.type} alert was not delivered: ${detail}`);
    return { sent: false, reason: "failed", detail };
  }
}

const ALERTED: ReadonlySet<ServerEvent["type"]> = new Set(ALERTS);
export const isAlert = (event: ServerEvent): event is Exclude<AlertEvent, { type: "test" }> => ALERTED.has(event.type);

/** Tells the owner, without holding up the request beyond ALERT_DEADLINE_MS. Never throws. */
export async function alert(ctx: AlertContext, event: AlertEvent): Promise<void> {
  if (!ctx.config.notify) return;
  await afterAnswer(ctx.requester?.waitUntil, deliver(ctx, event), ALERT_DEADLINE_MS);
}

/** The console's "send a test alert": awaited, so that the owner learns how it went. */
export function testAlert(ctx: AlertContext): Promise<AlertOutcome> {
  return deliver(ctx, { type: "test" });
}

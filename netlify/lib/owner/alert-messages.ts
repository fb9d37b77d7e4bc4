// The words of each alert, and the body each kind of receiver expects (NOTIFY_FORMAT). A
// message names what happened and, at most, the app, passkey or browser concerned: never a
// token, code, password, session, address or the webhook's own URL. What a client or a browser
// chose (a client_id, a User-Agent) is cut short, stripped of control characters, and escaped
// for the receiver's markup so that it cannot mention @everyone or forge a link.
import type { WebhookMessage } from "../clients/webhook.ts";
import type { NotifyFormat } from "../platform/notify-config.ts";
import type { ServerEvent } from "../platform/events.ts";
import { cutText } from "./connection-attempts.ts";

/** The server's events that are alerts (platform/events.ts). */
export const ALERTS = [
  "app-approved",
  "passkey-added",
  "passkey-removed",
  "new-device-sign-in",
  "throttle-engaged",
] as const;
/** An alert, or the console's test. */
export type AlertEvent = Extract<ServerEvent, { type: (typeof ALERTS)[number] }> | { type: "test" };
export type AlertKind = AlertEvent["type"];

interface AlertText {
  title: string;
  /** One or two sentences; `detail` (the chosen value) is kept apart to be escaped. */
  lead: string;
  detail?: string;
  tags: string;
  urgent: boolean;
}

const SHOWN_LENGTH = 100;

/** A value from outside, as a message shows it: one line of printable text, at most 100 characters. */
export function shownValue(value: string): string {
  // Control, format (bidi overrides, zero-width) and separator characters become spaces.
  const flat = value
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return cutText(flat, SHOWN_LENGTH);
}

function textOf(event: AlertEvent): AlertText {
  switch (event.type) {
    case "app-approved":
      return {
        title: "New app approved",
        lead: "An app was approved for the first time:",
        detail: event.clientId,
        tags: "key",
        urgent: false,
      };
    case "passkey-added":
      return {
        title: "Passkey added",
        lead: "A passkey was added:",
        detail: event.name,
        tags: "closed_lock_with_key",
        urgent: true,
      };
    case "passkey-removed":
      return {
        title: "Passkey removed",
        lead: "A passkey was removed:",
        detail: event.name,
        tags: "wastebasket",
        urgent: true,
      };
    case "new-device-sign-in":
      return {
        title: "Sign-in from a new device",
        lead: "Your password signed in on a device not seen before:",
        detail: event.device,
        tags: "warning",
        urgent: true,
      };
    case "throttle-engaged":
      return {
        title: "Password guessing slowed down",
        lead: "Many wrong passwords (or passkey answers that did not verify) were tried: password sign-in is being slowed down.",
        tags: "rotating_light",
        urgent: true,
      };
    case "test":
      return {
        title: "Test alert",
        lead: "Alerts from your IndieAuth server reach you here.",
        tags: "white_check_mark",
        urgent: false,
      };
  }
}

const escapeSlack = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const escapeMarkdown = (text: string) => text.replace(/[\\`*_~|<>[\]()#@!:-]/g, "\\$&");

interface Sent {
  /** The owner's profile URL: which server is speaking. */
  me: string;
  at: number;
}

/** The message for a receiver of this format. */
export function webhookMessage(format: NotifyFormat, event: AlertEvent, sent: Sent): WebhookMessage {
  const { title, lead, detail, tags, urgent } = textOf(event);
  const shown = detail === undefined ? undefined : shownValue(detail);
  const site = new URL(sent.me).host;
  const plain = shown === undefined ? lead : `${lead} ${shown}`;
  const json = (value: unknown): WebhookMessage => ({ contentType: "application/json", body: JSON.stringify(value) });
  switch (format) {
    case "ntfy":
      // The body is shown as it is (ntfy renders markdown only when asked to).
      return {
        contentType: "text/plain; charset=utf-8",
        body: plain,
        headers: { Title: `IndieAuth (${site}): ${title}`, Tags: tags, Priority: urgent ? "high" : "default" },
      };
    case "slack":
      return json({ text: `*IndieAuth (${escapeSlack(site)}): ${title}*\n${escapeSlack(plain)}` });
    case "discord":
      return json({
        content: `**IndieAuth (${site}): ${title}**\n${lead}${shown === undefined ? "" : ` ${escapeMarkdown(shown)}`}`,
        allowed_mentions: { parse: [] },
      });
    case "matrix":
      return json({
        text: `IndieAuth (${site}): ${title}. ${lead}${shown === undefined ? "" : ` ${escapeMarkdown(shown)}`}`,
        username: "IndieAuth",
      });
    case "json":
      return json({
        event: event.type,
        title,
        message: plain,
        ...(shown === undefined ? {} : { subject: shown }),
        me: sent.me,
        at: new Date(sent.at).toISOString(),
      });
  }
}

// The words and shapes of the owner's alerts (owner/alert-messages.ts): each receiver gets the
// body it reads, and what a client or browser chose cannot become markup, a mention or a link.
import { describe, expect, it } from "vitest";
import { shownValue, webhookMessage, type AlertEvent } from "../../netlify/lib/owner/alert-messages.ts";

const SENT = { me: "https://jane.example/", at: Date.UTC(2026, 10, 25, 2, 0, 0) };
const APP: AlertEvent = {
  type: "app-approved",
  clientId: "https://app.example/ <!channel> @everyone **bold** [x](https://evil.example)",
};

describe("alert messages", () => {
  it("ntfy: the text as the body, a title, tags and a priority in headers", () => {
    const message = webhookMessage("ntfy", { type: "passkey-removed", name: "Phone" }, SENT);
    expect(message).toEqual({
      contentType: "text/plain; charset=utf-8",
      body: "A passkey was removed: Phone",
      headers: { Title: "IndieAuth (jane.example): Passkey removed", Tags: "wastebasket", Priority: "high" },
    });
  });

  it("Slack: {text}, with <, > and & escaped so that no <!channel> or link can be forged", () => {
    const { body, contentType } = webhookMessage("slack", APP, SENT);
    expect(contentType).toBe("application/json");
    const text = (JSON.parse(body) as { text: string }).text;
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).not.toMatch(/<!channel>|<https?:/);
  });

  it("Discord: {content} with mentions turned off and the app's words escaped", () => {
    const parsed = JSON.parse(webhookMessage("discord", APP, SENT).body) as {
      content: string;
      allowed_mentions: unknown;
    };
    expect(parsed.allowed_mentions).toEqual({ parse: [] });
    expect(parsed.content).toContain("\\@everyone");
    expect(parsed.content).toContain("\\*\\*bold\\*\\*");
    expect(parsed.content).not.toContain("](https://evil.example)");
  });

  it("Matrix (hookshot): {text, username}", () => {
    const parsed = JSON.parse(webhookMessage("matrix", { type: "test" }, SENT).body) as Record<string, string>;
    expect(parsed).toEqual({
      text: "IndieAuth (jane.example): Test alert. Alerts from your IndieAuth server reach you here.",
      username: "IndieAuth",
    });
  });

  it("generic JSON: the kind, words, subject, server and time", () => {
    expect(
      JSON.parse(webhookMessage("json", { type: "new-device-sign-in", device: "Firefox on Linux" }, SENT).body),
    ).toEqual({
      event: "new-device-sign-in",
      title: "Sign-in from a new device",
      message: "Your password signed in on a device not seen before: Firefox on Linux",
      subject: "Firefox on Linux",
      me: "https://jane.example/",
      at: "2026-11-25T02:00:00.000Z",
    });
  });

  it("a chosen value is one line, without control or bidi characters, at most 100 characters", () => {
    expect(shownValue("a\nb\u202Ec\u0000d\u200Be")).toBe("a b c d e");
    const long = shownValue(`https://app.example/${"x".repeat(300)}`);
    expect([...long]).toHaveLength(100);
    expect(long.endsWith("…")).toBe(true);
  });
});

// NOTIFY_URL and NOTIFY_FORMAT (platform/notify-config.ts, read by config.ts): https only, a
// loopback receiver only in local development, the body's shape by host unless named.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../netlify/lib/platform/config.ts";
import { testEnv } from "../helpers/env.ts";

async function notify(env: Record<string, string>) {
  const result = loadConfig(await testEnv(env));
  return result.ok ? { notify: result.config.notify } : { problems: result.problems.map((p) => p.variable) };
}

describe("NOTIFY_URL", () => {
  it("is optional: without it alerts are off", async () => {
    expect(await notify({})).toEqual({ notify: undefined });
  });

  it("chooses the shape by host: ntfy, Slack, Discord, anything else generic JSON", async () => {
    expect(await notify({ NOTIFY_URL: "https://ntfy.sh/jane-alerts-x7" })).toEqual({
      notify: { url: "https://ntfy.sh/jane-alerts-x7", format: "ntfy", loopback: false },
    });
    expect((await notify({ NOTIFY_URL: "https://ntfy.jane.example/alerts" })).notify?.format).toBe("ntfy");
    expect((await notify({ NOTIFY_URL: "https://hooks.slack.com/services/T0/B0/x" })).notify?.format).toBe("slack");
    expect((await notify({ NOTIFY_URL: "https://discord.com/api/webhooks/1/abc" })).notify?.format).toBe("discord");
    expect((await notify({ NOTIFY_URL: "https://hooks.jane.example/in" })).notify?.format).toBe("json");
  });

  it("NOTIFY_FORMAT names the shape (a Matrix hookshot webhook, say), and must be a known one", async () => {
    expect(
      (await notify({ NOTIFY_URL: "https://matrix.jane.example/webhook/abc", NOTIFY_FORMAT: "Matrix" })).notify?.format,
    ).toBe("matrix");
    expect(await notify({ NOTIFY_URL: "https://hooks.jane.example/in", NOTIFY_FORMAT: "teams" })).toEqual({
      problems: ["NOTIFY_FORMAT"],
    });
  });

  it("must be https, carry no user:password, and reach this machine only in local development", async () => {
    expect(await notify({ NOTIFY_URL: "http://hooks.jane.example/in" })).toEqual({ problems: ["NOTIFY_URL"] });
    expect(await notify({ NOTIFY_URL: "https://user:pass@hooks.jane.example/in" })).toEqual({
      problems: ["NOTIFY_URL"],
    });
    expect(await notify({ NOTIFY_URL: "not a url" })).toEqual({ problems: ["NOTIFY_URL"] });
    expect(await notify({ NOTIFY_URL: "https://localhost:8443/in" })).toEqual({ problems: ["NOTIFY_URL"] });
    expect(await notify({ NOTIFY_URL: "http://127.0.0.1:9000/in" })).toEqual({ problems: ["NOTIFY_URL"] });
    expect(await notify({ NOTIFY_URL: "http://127.0.0.1:9000/in", NETLIFY_DEV: "true" })).toEqual({
      notify: { url: "http://127.0.0.1:9000/in", format: "json", loopback: true },
    });
    // Development allows loopback, not plain http to anywhere else.
    expect(await notify({ NOTIFY_URL: "http://hooks.jane.example/in", NETLIFY_DEV: "true" })).toEqual({
      problems: ["NOTIFY_URL"],
    });
  });
});

// The owner console's alerts (/indieauth/api/account/alerts): whether they are on and where they
// go (the receiver's host only: the URL itself is a secret), and "send a test alert". Their routes
// (account.ts) need a live session; the test is a same-origin POST like every console action.
import { InvalidRequest, TemporarilyUnavailable, TooManyAttempts } from "../errors.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { testAlert } from "../owner/alerts.ts";
import type { AlertsView } from "../pages/account-view.ts";

function alertsView(ctx: RequestContext): AlertsView {
  const notify = ctx.config.notify;
  return notify ? { on: true, host: new URL(notify.url).host, format: notify.format } : { on: false };
}

export async function alertsStatus(ctx: RequestContext): Promise<Response> {
  return json(alertsView(ctx));
}

export async function sendTestAlert(ctx: RequestContext): Promise<Response> {
  const outcome = await testAlert(ctx);
  if (outcome.sent) return json({ ok: true, ...alertsView(ctx) });
  switch (outcome.reason) {
    case "off":
      throw new InvalidRequest("Alerts are off: set NOTIFY_URL to your webhook's address, then deploy again.");
    case "rate-limited":
      throw new TooManyAttempts(
        `A test alert went out less than a minute ago. Try again in ${outcome.retryAfterSeconds ?? 60} seconds.`,
        outcome.retryAfterSeconds ?? 60,
      );
    case "failed":
      throw new TemporarilyUnavailable(`The test alert did not arrive (${outcome.detail ?? "no answer"})`);
  }
}

// The console's Alerts card: whether alerts are on (NOTIFY_URL) and to which host, and "Send a
// test alert". It reads its own API call once the console is shown (after sign-in), and
// writes everything as text. Apart from account.ts, which it does not need to know about.
import type { AlertsView } from "../../netlify/lib/pages/account-view.ts";
import { ACCOUNT_API } from "../../netlify/lib/pages/paths.ts";
import { byId } from "./dom.ts";

const FORMATS: Record<string, string> = {
  ntfy: "ntfy",
  slack: "Slack",
  discord: "Discord",
  matrix: "Matrix",
  json: "JSON",
};
const WHEN =
  "when an app is approved for the first time, a passkey is added or removed, your password signs in on a new device, or password guessing is slowed down";

const consoleView = byId("console-view");
const state = byId("alerts-state");
const button = byId<HTMLButtonElement>("alerts-test");
const result = byId("alerts-result");

function isAlertsView(value: unknown): value is AlertsView {
  return typeof value === "object" && value !== null && typeof (value as { on?: unknown }).on === "boolean";
}

function show(view: AlertsView): void {
  if (view.on) {
    state.textContent = `Alerts are on: a short message goes to ${view.host} (${FORMATS[view.format] ?? view.format}) ${WHEN}. At most one of each kind a minute.`;
  } else {
    state.textContent = `Alerts are off. Set NOTIFY_URL to a webhook (ntfy, Slack, Discord, Matrix or any JSON receiver) to hear ${WHEN}.`;
  }
  button.hidden = !view.on;
}

async function load(): Promise<void> {
  try {
    const response = await fetch(`${ACCOUNT_API}/alerts`, { headers: { Accept: "application/json" } });
    const view: unknown = await response.json();
    if (!response.ok || !isAlertsView(view)) throw new Error(String(response.status));
    show(view);
  } catch {
    state.textContent = "The alert settings could not be read. Reload the page to try again.";
  }
}

async function sendTest(): Promise<void> {
  button.disabled = true;
  result.textContent = "Sending a test alert…";
  try {
    const response = await fetch(`${ACCOUNT_API}/alerts/test`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: "{}",
    });
    const body: unknown = await response.json().catch(() => null);
    const description =
      typeof body === "object" && body !== null
        ? (body as { error_description?: unknown }).error_description
        : undefined;
    if (response.ok && isAlertsView(body) && body.on)
      result.textContent = `Test alert sent to ${body.host}. Check that it arrived.`;
    else result.textContent = typeof description === "string" ? description : "The test alert could not be sent.";
  } catch {
    result.textContent = "The server could not be reached. Check your connection and try again.";
  } finally {
    button.disabled = false;
  }
}

button.addEventListener("click", () => void sendTest());

// Read once the console shows (the owner has signed in), again after a sign-out and back in.
let loaded = false;
function onConsoleShown(): void {
  if (consoleView.hidden) {
    loaded = false;
    result.textContent = "";
  } else if (!loaded) {
    loaded = true;
    void load();
  }
}
new MutationObserver(onConsoleShown).observe(consoleView, { attributes: true, attributeFilter: ["hidden"] });
onConsoleShown();

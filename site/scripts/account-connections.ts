// The console's connection doctor: the Connections card (each app's latest attempts, read only
// when the owner asks) and "Check my MCP server". The words, fixes included, are the server's;
// everything is written as text (client_ids and what a server answered are others' words).
import type {
  ConnectionAttemptView,
  ConnectionClientView,
  ConnectionsView,
  McpCheckView,
  McpFindingView,
} from "../../netlify/lib/pages/connections-view.ts";
import { ACCOUNT_API } from "../../netlify/lib/pages/paths.ts";
import { api, describe } from "./account-api.ts";
import { dateFormat, element } from "./account-render.ts";
import { byId } from "./dom.ts";

const consoleView = byId("console-view");
const showButton = byId<HTMLButtonElement>("connections-show");
const state = byId("connections-state");
const list = byId("connection-list");
const form = byId<HTMLFormElement>("mcp-check-form");
const checkButton = byId<HTMLButtonElement>("mcp-check-submit");
const checkState = byId("mcp-check-state");
const findings = byId("mcp-findings");

/** One step or finding: a mark and its sentence, then the fix where there is one (a step that
 * went wrong), or what comes next (one that did not: never labelled a fix). */
function finding(view: Pick<McpFindingView, "ok" | "says" | "fix"> & { note?: string }, extra = ""): HTMLLIElement {
  const item = element("li", undefined, `finding ${view.ok ? "ok" : "problem"}`);
  item.append(element("p", `${view.ok ? "✓" : "✗"} ${view.says}${extra}`));
  if (view.fix) item.append(element("p", `Fix: ${view.fix}`, "fix"));
  if (view.note) item.append(element("p", view.note, "note"));
  return item;
}

function attemptBlock(attempt: ConnectionAttemptView, open: boolean): HTMLDetailsElement {
  const details = element("details", undefined, "attempt");
  details.open = open;
  details.append(element("summary", `${dateFormat.format(attempt.startedAt)}: ${attempt.says}`));
  const steps = element("ul", undefined, "findings");
  for (const step of attempt.steps)
    steps.append(finding(step, step.error && !step.says.includes(step.error) ? ` (${step.error})` : ""));
  details.append(steps);
  return details;
}

function clientItem(client: ConnectionClientView): HTMLLIElement {
  const item = element("li", undefined, "item");
  const head = element("h3", client.clientId, "break");
  // Of the app, not of an attempt below (which may have stalled): whether you ever approved it.
  head.append(" ", element("span", client.approved ? "approved before" : "never approved", "badge"));
  item.append(head);
  client.attempts.forEach((attempt, i) => item.append(attemptBlock(attempt, i === 0)));
  return item;
}

async function showConnections(): Promise<void> {
  showButton.disabled = true;
  state.textContent = "Reading the connections…";
  try {
    const view = await api<ConnectionsView>(`${ACCOUNT_API}/connections`);
    list.replaceChildren(...view.clients.map(clientItem));
    state.textContent = view.clients.length === 0 ? "No app tried to connect in the last 30 days." : "";
    showButton.textContent = "Refresh connections";
  } catch (error) {
    state.textContent = describe(error);
  } finally {
    showButton.disabled = false;
  }
}

async function checkMcp(): Promise<void> {
  const url = byId<HTMLInputElement>("mcp-url").value.trim();
  checkButton.disabled = true;
  findings.replaceChildren();
  checkState.textContent = "Checking your MCP server…";
  try {
    const view = await api<McpCheckView>(`${ACCOUNT_API}/mcp-check`, { url });
    checkState.textContent = view.ok
      ? `${view.url} is ready for MCP hosts.`
      : `${view.url}: ${view.findings.filter((f) => !f.ok).length} to fix.`;
    findings.replaceChildren(...view.findings.map((f) => finding(f)));
  } catch (error) {
    checkState.textContent = describe(error);
  } finally {
    checkButton.disabled = false;
  }
}

showButton.addEventListener("click", () => void showConnections());
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void checkMcp();
});

// Signed out: nothing of the last owner's view stays on the page.
new MutationObserver(() => {
  if (!consoleView.hidden) return;
  list.replaceChildren();
  findings.replaceChildren();
  state.textContent = checkState.textContent = "";
  showButton.textContent = "Show connections";
}).observe(consoleView, { attributes: true, attributeFilter: ["hidden"] });

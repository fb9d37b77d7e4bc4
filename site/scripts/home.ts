// The home page: copying the tags, checking the owner's page, starting the self-test.
import type { ProfileLinksReport } from "../../netlify/lib/owner/profile-links.ts";
import { challengeFor, randomValue, SELF_TEST_KEY, selfTestClient, type PendingSignIn } from "./self-test-flow.ts";

function setUpCopy(): void {
  const button = document.querySelector<HTMLButtonElement>("button[data-copy]");
  const status = document.getElementById("copy-status");
  const copy = async (button: HTMLButtonElement) => {
    const source = document.getElementById(button.dataset.copy ?? "");
    if (!source || !status) return;
    try {
      await navigator.clipboard.writeText(source.textContent);
      status.textContent = "Copied.";
    } catch {
      // Clipboard refused (insecure context, permissions): select the text for a manual copy.
      const range = document.createRange();
      range.selectNodeContents(source);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy.";
    }
  };
  // copy() and check() below catch their own failures: the click need not wait for them.
  button?.addEventListener("click", () => void copy(button));
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function renderReport(target: HTMLElement, report: ProfileLinksReport): void {
  const parts: HTMLElement[] = [];
  if (!report.fetched) {
    // Nothing was read, so nothing is known to be missing: say what failed, and what to add.
    const reason = (report.error ?? "unknown error").replace(/^could not fetch \S+: /i, "");
    parts.push(element("p", `Could not fetch ${report.me}: ${reason}.`, "error"));
    parts.push(element("p", "Once it can be fetched, your page should carry these three tags in its <head>:"));
    const tags = element("ul", undefined, "checks");
    for (const check of report.checks) {
      const item = element("li");
      item.dataset.rel = check.rel;
      item.append(element("pre", check.tag));
      tags.append(item);
    }
    parts.push(tags);
    target.replaceChildren(...parts);
    return;
  }
  const list = element("ul", undefined, "checks");
  for (const check of report.checks) {
    const item = element("li", undefined, check.ok ? "ok" : "missing");
    item.dataset.rel = check.rel;
    const verdict = check.ok
      ? `✓ ${check.rel} points here`
      : check.found
        ? `✗ ${check.rel} points to ${check.found}, not here. Replace it with:`
        : `✗ ${check.rel} is missing. Add:`;
    item.append(element("span", verdict));
    if (!check.ok) item.append(element("pre", check.tag));
    list.append(item);
  }
  parts.push(list);
  if (report.checks.every((c) => c.ok))
    parts.push(element("p", "All set: apps will find this server from your website."));
  target.replaceChildren(...parts);
}

function setUpLinkCheck(): void {
  const button = document.getElementById("check-links");
  const target = document.getElementById("link-report");
  const check = async () => {
    if (!target) return;
    target.replaceChildren(element("p", "Checking…"));
    try {
      const response = await fetch("/indieauth/self-test/me", { headers: { Accept: "application/json" } });
      const body = (await response.json()) as ProfileLinksReport & { error_description?: string };
      if (!response.ok) throw new Error(body.error_description ?? `HTTP ${response.status}`);
      renderReport(target, body);
    } catch (error) {
      target.replaceChildren(
        element("p", `The check failed: ${error instanceof Error ? error.message : String(error)}`, "error"),
      );
    }
  };
  button?.addEventListener("click", () => void check());
}

function setUpSelfTest(): void {
  const button = document.getElementById("test-sign-in");
  const start = async (button: HTMLElement) => {
    const base = button.dataset.base || location.origin;
    const pending: PendingSignIn = { state: randomValue(), verifier: randomValue(), base };
    sessionStorage.setItem(SELF_TEST_KEY, JSON.stringify(pending));
    const { clientId, redirectUri } = selfTestClient(base);
    const params = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      state: pending.state,
      code_challenge: await challengeFor(pending.verifier),
      code_challenge_method: "S256",
      // Ask for the e-mail address only when there is one to give.
      scope: button.dataset.email === "yes" ? "profile email" : "profile",
    });
    location.assign(`${base}/auth?${params}`);
  };
  // Hashing the verifier fails only where Web Crypto is missing (not a secure context): say so.
  const report = (error: unknown) =>
    document
      .getElementById("link-report")
      ?.replaceChildren(element("p", `The test sign-in could not start: ${String(error)}`, "error"));
  button?.addEventListener("click", () => void start(button).catch(report));
}

setUpCopy();
setUpLinkCheck();
setUpSelfTest();

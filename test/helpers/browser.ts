// The system Chromium driven by playwright-core (no browser downloads on these machines).
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
    (p): p is string => !!p,
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error("Chromium not found: install it (apt-get install chromium) or set CHROMIUM_PATH.");
  return found;
}

/** `args` are added to the usual ones (e.g. --host-resolver-rules). */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
      ...args,
    ],
  });
}

/** Approve when it is on: the gate keeps it off with aria-disabled (a keyboard can still reach it). */
export const APPROVE_ON = '#approve:enabled:not([aria-disabled="true"])';

/** The sign-in page's Approve (and "Approve with a passkey") turn on only once the page has
 * been visible for a moment and the person then acts on it (site/scripts/approve-gate.ts). This
 * waits for that moment (the page says so) and moves the pointer, as a person reaching for the
 * button does. */
export async function readyToApprove(page: Page): Promise<void> {
  await page.locator(`${APPROVE_ON}, #approve-hint:visible`).first().waitFor();
  if (await page.locator("#approve").isDisabled()) {
    await page.mouse.move(1, 1);
    await page.mouse.move(2, 2);
  }
  const shown = (await page.locator("#approve").isVisible())
    ? APPROVE_ON
    : '#passkey-button:not([aria-disabled="true"])';
  await page.locator(shown).waitFor();
}

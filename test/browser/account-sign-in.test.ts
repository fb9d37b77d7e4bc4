// Signing in on the account page, as the owner sees it in a real Chromium against the real
// functions: while the server works, the button says "Signing in…" and a live region says it to
// screen readers (the request is held, then let through to the server, so the moment can be
// looked at on a busy machine); a wrong password puts the button back. Then the console's heading,
// focused after sign-in, keeps its focus outline clear of the "Signed in as …" line on a 390 px
// phone, light and dark (screenshots in test/output/screenshots/).
import { mkdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page, Route } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;

let server: NetlifyDev;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startNetlifyDev({ PROFILE_NAME: "Jane Doe" }), launchChromium()]);
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function accountPage(colorScheme: "light" | "dark", width = 390): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme });
  const page = await context.newPage();
  await page.goto(`${server.baseUrl}/indieauth/account/`);
  await page.locator("#password").waitFor();
  return page;
}

/** Holds the next sign-in request until `release` is called, then sends it on to the server. */
async function holdSignIn(page: Page): Promise<{ held: Promise<void>; release: () => void }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  await page.route("**/indieauth/api/account/sign-in", async (route: Route) => {
    arrived();
    await released;
    await route.continue();
  });
  return { held, release };
}

describe("signing in on the account page", () => {
  it("says it is signing in while the server works, and puts the button back after a wrong password", async () => {
    const page = await accountPage("light");
    const button = page.locator("#sign-in-submit");
    const progress = page.locator("#sign-in-progress");
    await expect.poll(() => progress.getAttribute("aria-live")).toBe("polite");

    const wrong = await holdSignIn(page);
    await page.fill("#password", "not the password");
    await page.press("#password", "Enter");
    await wrong.held;
    expect(await button.textContent()).toBe("Signing in…");
    expect(await button.isDisabled()).toBe(true);
    expect(await progress.textContent()).toBe("Signing in…");
    expect(await page.locator("#sign-in-form").getAttribute("aria-busy")).toBe("true");
    await page.screenshot({ path: `${SCREENSHOTS}account-signing-in-390-light.png` });
    wrong.release();
    await page.locator("#sign-in-error").waitFor();
    expect(await button.textContent()).toBe("Sign in");
    expect(await button.isDisabled()).toBe(false);
    expect(await progress.textContent()).toBe("");
    expect(await page.locator("#sign-in-form").getAttribute("aria-busy")).toBeNull();
    await page.unroute("**/indieauth/api/account/sign-in");

    const right = await holdSignIn(page);
    await page.fill("#password", TEST_PASSWORD);
    await page.press("#password", "Enter");
    await right.held;
    expect(await button.textContent()).toBe("Signing in…");
    right.release();
    await page.locator("#console-view").waitFor();
    expect(await page.locator("#sign-in-view").isHidden()).toBe(true);
    await page.context().close();
  });

  for (const colorScheme of ["light", "dark"] as const) {
    it(`keeps the focused heading's outline clear of "Signed in as …" at 390 px (${colorScheme})`, async () => {
      const page = await accountPage(colorScheme);
      await page.fill("#password", TEST_PASSWORD);
      await page.press("#password", "Enter");
      const heading = page.locator("#console-heading");
      await heading.waitFor();
      await expect
        .poll(() => heading.evaluate((h) => document.activeElement === h && h.matches(":focus-visible")))
        .toBe(true);
      // The outline as drawn: the heading's box grown by outline-offset + outline-width.
      const { outlineBottom, lineTop, outlineWidth } = await heading.evaluate((h) => {
        const style = getComputedStyle(h);
        const reach = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
        const line = document.querySelector("#console-me")!.closest("p")!;
        return {
          outlineBottom: h.getBoundingClientRect().bottom + reach,
          lineTop: line.getBoundingClientRect().top,
          outlineWidth: parseFloat(style.outlineWidth),
        };
      });
      expect(outlineWidth).toBeGreaterThan(0);
      expect(outlineBottom).toBeLessThanOrEqual(lineTop);
      await page
        .locator(".console-head")
        .screenshot({ path: `${SCREENSHOTS}account-heading-focus-390-${colorScheme}.png` });
      await page.context().close();
    });
  }
});

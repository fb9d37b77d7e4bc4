// "Add a passkey" in the console says what it is waiting for while its button is off (the
// password's check, which may wake a function; the browser's prompt; the saving), and lists the
// new passkey from the server's answer at once, without waiting for the console to be read again
// (nor for a reload). Real Chromium with a virtual authenticator against `netlify dev`; the
// requests the page makes are held by the test where it needs to look in between.
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";

let server: NetlifyDev;
let browser: Browser;
let context: BrowserContext | undefined;
const pageErrors: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startNetlifyDev(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(pageErrors.splice(0)).toEqual([]);
});

/** The console, signed in, with an authenticator that makes passkeys without asking. */
async function signedInConsole(): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  await page.goto(`${server.baseUrl}/account`);
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.locator("#console-view").waitFor();
  return page;
}

/** Holds the next request to `path` until the returned function lets it go on. */
async function hold(page: Page, path: string): Promise<{ reached: Promise<void>; release: () => Promise<void> }> {
  let route: Route | undefined;
  let reached!: () => void;
  const arrived = new Promise<void>((resolve) => (reached = resolve));
  await page.route(`**${path}`, (held) => {
    route = held;
    reached();
  });
  return {
    reached: arrived,
    release: async () => {
      await route?.continue();
      await page.unroute(`**${path}`);
    },
  };
}

describe("Add a passkey", () => {
  it("says what it waits for, and lists the new passkey as soon as the server has kept it", async () => {
    const page = await signedInConsole();
    const status = page.locator("#status");
    await page.getByLabel("Name").fill("Test laptop");
    await page.getByLabel("Your password, to confirm it is you").fill(TEST_PASSWORD);

    const options = await hold(page, "/indieauth/api/passkeys/registration-options");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await options.reached;
    await expect(status.textContent()).resolves.toBe("Checking your password…");
    await expect(page.locator("#add-passkey").isDisabled()).resolves.toBe(true);

    // The console's overview, read again once the passkey is kept, is held: the list must not wait for it.
    const overview = await hold(page, "/indieauth/api/account/session");
    await options.release();
    await overview.reached;
    const listed = page.locator("#passkey-list > li[data-passkey-id]", { hasText: "Test laptop" });
    await listed.waitFor();
    await expect(status.textContent()).resolves.toBe("Passkey “Test laptop” added.");

    await overview.release();
    await page.locator("#add-passkey:enabled").waitFor();
    await expect(listed.count()).resolves.toBe(1);
    await expect(status.textContent()).resolves.toBe("Passkey “Test laptop” added.");
  });
});

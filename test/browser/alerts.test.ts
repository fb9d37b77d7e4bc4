// The console's Alerts card in a real Chromium against `netlify dev`: it says alerts are on and
// where they go (the receiver's host, never the URL), and "Send a test alert" reaches the
// owner's webhook (a local receiver: loopback is allowed because this is local development),
// then says so; a second test within the minute is refused in words.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

let server: NetlifyDev;
let receiver: WebhookReceiver;
let browser: Browser;
let context: BrowserContext | undefined;
const pageErrors: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [server, browser] = await Promise.all([startNetlifyDev({ NOTIFY_URL: receiver.url }), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});
afterEach(async () => {
  await context?.close();
  expect(pageErrors.splice(0)).toEqual([]);
});

async function signedInConsole(): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(`${server.baseUrl}/account`);
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.locator("#console-view").waitFor();
  return page;
}

describe("the console's alerts", () => {
  it("shows that alerts are on and to which host; the test button sends one, and says so", async () => {
    const page = await signedInConsole();
    const host = new URL(receiver.url).host;
    const state = page.locator("#alerts-state", { hasText: "Alerts are on" });
    await state.waitFor();
    const shown = (await state.textContent()) ?? "";
    expect(shown).toContain(`goes to ${host} (JSON)`);
    expect(shown).not.toContain(receiver.secret);

    await page.getByRole("button", { name: "Send a test alert" }).click();
    await page.locator("#alerts-result", { hasText: /^Test alert sent/ }).waitFor();
    expect(await page.locator("#alerts-result").textContent()).toBe(
      `Test alert sent to ${host}. Check that it arrived.`,
    );
    // The console's own sign-in, from a browser never seen before, was told first.
    const tests = () => receiver.messages.filter((m) => (JSON.parse(m.body) as { event: string }).event === "test");
    await receiver.received(2);
    expect(tests()).toHaveLength(1);
    expect(JSON.parse(tests()[0]!.body)).toMatchObject({ event: "test", title: "Test alert" });

    // Within the minute: refused, in words, and nothing more is sent.
    await page.getByRole("button", { name: "Send a test alert" }).click();
    await page.locator("#alerts-result", { hasText: /^A test alert went out/ }).waitFor();
    expect(await page.locator("#alerts-result").textContent()).toMatch(
      /^A test alert went out less than a minute ago\. Try again in \d+ seconds\.$/,
    );
    expect(tests()).toHaveLength(1);
  });
});

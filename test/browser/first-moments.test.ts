// The sign-in page in its first moments, as a fast typist meets it: for 600 ms after it opens
// (site/scripts/approve-gate.ts) nothing turns Approve on, so a click or key meant for another
// window cannot press it. A press or key in that moment says why it did nothing, and once the
// page has settled the usual hint says what turns Approve on. A password typed here needs no
// wait at all. Real Chromium against `netlify dev`; the page's time is Playwright's clock, moved
// only by the test, so a busy machine changes nothing asserted.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { stopThePagesClock } from "../helpers/consent-attacker.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const WAIT =
  "The page has just opened or come back into view: Approve waits a moment, so that a click or key meant for another window cannot press it.";

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
let context: BrowserContext | undefined;
let page: Page;
const pageErrors: string[] = [];
const posts: string[] = [];

beforeAll(async () => {
  [server, client, browser] = await Promise.all([startNetlifyDev(), startClientSite(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(pageErrors.splice(0)).toEqual([]);
});

/** The sign-in page for the test's app on a device never signed in, the page's clock stopped
 * at the moment it opens. */
async function freshSignInPage(): Promise<void> {
  context = await browser.newContext({ viewport: { width: 800, height: 900 } });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  posts.length = 0;
  page.on("request", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === "/auth/approve") posts.push(request.url());
  });
  await stopThePagesClock(page);
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "s",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile",
  });
  await page.goto(`${server.baseUrl}/auth?${params}`);
  await page.locator("#approve").waitFor();
}

const visible = (id: string) => page.locator(`#${id}`).isVisible();

describe("the sign-in page's first moments", () => {
  it("a click on Approve as the page appears says why it did nothing; once settled, what turns it on", async () => {
    await freshSignInPage();
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    // A real click where Approve is (force: Playwright would wait for a button that is off).
    await page.locator("#approve").click({ force: true });
    await page.locator("#wait-hint").waitFor();
    expect(await page.locator("#wait-hint").textContent()).toBe(WAIT);
    expect(await visible("approve-hint")).toBe(false);
    expect(posts).toEqual([]);

    await page.clock.runFor(700);
    await page.locator("#approve-hint").waitFor();
    expect(await visible("wait-hint")).toBe(false);
    expect(posts).toEqual([]);
  });

  it("a fast Tab to Approve and Enter say the same; the settled page then asks for a fresh Tab", async () => {
    await freshSignInPage();
    for (let step = 0; step < 12 && (await page.evaluate(() => document.activeElement?.id)) !== "approve"; step++)
      await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("approve");
    await page.locator("#wait-hint").waitFor();
    await page.keyboard.press("Enter");
    expect(await visible("wait-hint")).toBe(true);

    await page.clock.runFor(700);
    await page.locator("#approve-hint").waitFor();
    expect(await visible("wait-hint")).toBe(false);
    expect(await page.locator("#approve-hint").textContent()).toContain("reach it with Tab and press Enter");
  });

  it("Enter over a password filled in for the owner, before the page settled, says both why and to press Approve", async () => {
    await freshSignInPage();
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.keyboard.press("Enter");
    await page.locator("#enter-hint").waitFor();
    expect(await visible("wait-hint")).toBe(true);
    expect(posts).toEqual([]);
  });

  it("a password typed at once and Enter sign in at once: nothing to wait for, nothing said", async () => {
    await freshSignInPage();
    await page.keyboard.type(TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.keyboard.press("Enter")]);
    expect(posts).toHaveLength(1);
  });
});

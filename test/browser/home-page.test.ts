// The home page and the functions' message pages as a person sees them on a phone, and the
// self-test's request when no e-mail address is configured, and what it says when it cannot start.
import { mkdir } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ACCOUNT_PAGE, SIGN_IN_PAGE } from "../../netlify/lib/pages/paths.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;
const PHONE = { width: 375, height: 740 };

let server: NetlifyDev;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  [server, browser] = await Promise.all([startNetlifyDev({ PROFILE_EMAIL: "" }), launchChromium()]);
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});
beforeEach(async () => {
  context = await browser.newContext({ viewport: PHONE });
  page = await context.newPage();
});
afterEach(async () => {
  await context.close();
});

describe("on a phone", () => {
  it("the endpoints table breaks its URLs only after / . or -, never inside a word", async () => {
    await page.goto(`${server.baseUrl}/`);
    const breaks = await page.locator("code.url").evaluateAll((codes) =>
      codes.flatMap((code) => {
        // The characters in reading order with the line each one sits on.
        const characters: { text: string; top: number }[] = [];
        const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < (node.textContent ?? "").length; i++) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            characters.push({ text: node.textContent![i]!, top: Math.round(range.getBoundingClientRect().top) });
          }
        }
        return characters.flatMap((c, i) => (i > 0 && c.top > characters[i - 1]!.top ? [characters[i - 1]!.text] : []));
      }),
    );
    expect(breaks.length).toBeGreaterThan(0);
    for (const before of breaks) expect(["/", ".", "-"]).toContain(before);
    await page.screenshot({ path: `${SCREENSHOTS}home-375.png`, fullPage: true });
  });

  it("a refusal page keeps a margin on both sides", async () => {
    await page.goto(`${server.baseUrl}/auth?client_id=nope&redirect_uri=nope`);
    await expect(page.locator("h1").textContent()).resolves.toBeTruthy();
    const box = (await page.locator("main").boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(12);
    expect(PHONE.width - (box.x + box.width)).toBeGreaterThanOrEqual(12);
    await page.screenshot({ path: `${SCREENSHOTS}refusal-375.png`, fullPage: true });
  });
});

describe("the self-test", () => {
  it("asks only for the profile when no e-mail address is configured", async () => {
    await page.goto(`${server.baseUrl}/`);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}${SIGN_IN_PAGE}**`),
      page.getByRole("button", { name: "Test sign-in" }).click(),
    ]);
    // The page shows the request once the server has confirmed it can be used.
    await page.getByRole("button", { name: "Approve" }).waitFor();
    const scopes = await page
      .locator('input[name="scope"]')
      .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(scopes).toEqual(["profile"]);
  });

  it("says so when it cannot start (no Web Crypto to hash its verifier), instead of doing nothing", async () => {
    await page.addInitScript(() => Object.defineProperty(crypto, "subtle", { value: undefined }));
    await page.goto(`${server.baseUrl}/`);
    await page.getByRole("button", { name: "Test sign-in" }).click();
    await expect.poll(() => page.locator("#link-report").textContent()).toContain("The test sign-in could not start");
    expect(page.url()).toBe(`${server.baseUrl}/`);
  });
});

describe("password managers", () => {
  it.each([SIGN_IN_PAGE, ACCOUNT_PAGE])("find whose password it is in every password form of %s", async (path) => {
    await page.goto(`${server.baseUrl}${path}`);
    const forms = await page.locator("form:has(input[type=password])").evaluateAll((found) =>
      found.map((form) => ({
        username: form.querySelector<HTMLInputElement>('input[autocomplete="username"]')?.value ?? null,
        password: form.querySelector("input[type=password]")?.getAttribute("autocomplete") ?? null,
      })),
    );
    expect(forms.length).toBeGreaterThan(0);
    for (const form of forms) {
      expect(form.username).toBe(server.env.ME);
      expect(form.password).toContain("current-password");
    }
  });
});

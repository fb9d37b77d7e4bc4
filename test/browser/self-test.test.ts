// The home page's self-test in a real Chromium: the check of the owner's page (served here
// by a small local "blog") and a real sign-in in which the deployment is its own client.
import { createServer, type Server } from "node:http";
import { mkdir } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { SELF_TEST_PAGE, SIGN_IN_PAGE } from "../../netlify/lib/pages/paths.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { freePort, startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;

/** The owner's blog: its <head> and Link header are set by each test. */
const blog = { head: "", linkHeader: "", down: false };
let blogServer: Server;
let blogUrl: string;
let server: NetlifyDev;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  const port = await freePort();
  blogUrl = `http://localhost:${port}/`;
  blogServer = createServer((_req, res) => {
    if (blog.down) return void res.socket?.destroy();
    const headers: Record<string, string> = { "Content-Type": "text/html; charset=utf-8" };
    if (blog.linkHeader) headers.Link = blog.linkHeader;
    res.writeHead(200, headers);
    res.end(
      `<!doctype html><html><head><title>Jane's blog</title>${blog.head}</head><body><h1>Jane's blog</h1></body></html>`,
    );
  });
  await new Promise<void>((resolve) => blogServer.listen(port, "127.0.0.1", resolve));
  [server, browser] = await Promise.all([startNetlifyDev({ ME: blogUrl }), launchChromium()]);
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => blogServer?.close(resolve));
});
beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});
afterEach(async () => {
  await context.close();
});

const tag = (rel: string, href: string) => `<link rel="${rel}" href="${href}">`;

async function checkLinks(): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  await page.getByRole("button", { name: "Check my website" }).click();
  await page.locator("#link-report li").first().waitFor();
}

describe("the self-test", () => {
  it("confirms a blog that links here", async () => {
    blog.head = [
      tag("indieauth-metadata", `${server.baseUrl}/.well-known/oauth-authorization-server`),
      tag("authorization_endpoint", `${server.baseUrl}/auth`),
      tag("token_endpoint", `${server.baseUrl}/token`),
    ].join("");
    blog.linkHeader = "";
    await checkLinks();
    await expect(page.locator("#link-report li.ok").count()).resolves.toBe(3);
    await expect(page.locator("#link-report").textContent()).resolves.toContain("All set");
    // A result that passes is marked as plainly as one that fails: in colour, not in body text.
    const bodyColour = await page.evaluate(() => getComputedStyle(document.body).color);
    await expect(
      page
        .locator("#link-report li.ok span")
        .first()
        .evaluate((el) => getComputedStyle(el).color),
    ).resolves.not.toBe(bodyColour);
    await page.screenshot({ path: `${SCREENSHOTS}home-check.png`, fullPage: true });
  });

  it("reads Link headers too, and gives the exact tag for what is missing or wrong", async () => {
    blog.head = tag("indieauth-metadata", "https://elsewhere.example/.well-known/oauth-authorization-server");
    blog.linkHeader = `<${server.baseUrl}/auth>; rel="authorization_endpoint"`;
    await checkLinks();
    const item = (rel: string) => page.locator(`#link-report li[data-rel="${rel}"]`);
    await expect(item("authorization_endpoint").getAttribute("class")).resolves.toBe("ok");
    await expect(item("indieauth-metadata").textContent()).resolves.toContain("elsewhere.example");
    await expect(item("indieauth-metadata").locator("pre").textContent()).resolves.toBe(
      tag("indieauth-metadata", `${server.baseUrl}/.well-known/oauth-authorization-server`),
    );
    await expect(item("token_endpoint").locator("pre").textContent()).resolves.toBe(
      tag("token_endpoint", `${server.baseUrl}/token`),
    );
  });

  it("says so when the page cannot be fetched, instead of calling every tag missing", async () => {
    blog.down = true;
    try {
      await checkLinks();
      const report = (await page.locator("#link-report").textContent()) ?? "";
      expect(report).toContain(`Could not fetch ${blogUrl}:`);
      expect(report.toLowerCase().match(/could not fetch/g)).toHaveLength(1);
      expect(report).not.toContain("✗");
      expect(report).not.toContain("missing");
      await expect(page.locator("#link-report li pre").count()).resolves.toBe(3);
    } finally {
      blog.down = false;
    }
  });

  it("signs in with this deployment as its own client and shows the answer", async () => {
    await page.goto(`${server.baseUrl}/`);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}${SIGN_IN_PAGE}**`),
      page.getByRole("button", { name: "Test sign-in" }).click(),
    ]);
    // The page shows the request once the server has confirmed it can be used.
    await page.getByRole("button", { name: "Approve" }).waitFor();
    await expect(page.locator("#client-host").textContent()).resolves.toBe(`${server.baseUrl}/`);
    await expect(page.locator("#client-name").textContent()).resolves.toBe("IndieAuth self-test");
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await readyToApprove(page);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}${SELF_TEST_PAGE}**`),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    await page.locator("#result").waitFor();
    await expect(page.locator("#result-status").textContent()).resolves.toContain("It works");
    await expect(page.locator("#result-me").textContent()).resolves.toBe(blogUrl);
    await expect(page.locator("#result-profile").textContent()).resolves.toContain("jane@jane.example");
  });
});

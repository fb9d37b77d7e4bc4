// The sign-in page and the account page show the password field, or the console, only in a
// window of their own, whatever the headers say (site/scripts/own-window.ts). On a blog, the
// blog's own header rules can replace the server's (CSP frame-ancestors, X-Frame-Options,
// Cross-Origin-Opener-Policy): here Playwright's routing takes those three headers off every
// answer of the real server under `netlify dev`, so a page of the same origin, or of another
// site, can frame the pages, and a window that opens them keeps its handle. Real Chromium.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ACCOUNT_PAGE } from "../../netlify/lib/pages/paths.ts";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

/** The headers a blog's rules replaced: none of them protects the pages here. */
const REPLACED = ["content-security-policy", "x-frame-options", "cross-origin-opener-policy"];
/** Another site, served by the test itself (Playwright's routing): no name is resolved. */
const ELSEWHERE = "http://elsewhere.test";

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** Every request the browser makes to the account API. */
let accountApiCalls: string[];

beforeAll(async () => {
  [server, client, browser] = await Promise.all([startNetlifyDev(), startClientSite(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
});

/** A page of `origin` that frames `src` (sandboxed when `sandbox` is given). */
function framingPage(src: string, sandbox?: string): string {
  const attributes = sandbox === undefined ? "" : ` sandbox="${sandbox}"`;
  return `<!doctype html><title>A blog post</title><h1>A blog post</h1><iframe src="${src}"${attributes} width="800" height="900"></iframe>`;
}

beforeEach(async () => {
  context = await browser.newContext();
  pageErrors = [];
  accountApiCalls = [];
  // The server's answers without the headers a blog's rules would have replaced.
  await context.route(`${server.baseUrl}/**`, async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === "/framer" || url.pathname === "/opener") {
      const src = url.searchParams.get("src") ?? "";
      const body =
        url.pathname === "/framer"
          ? framingPage(src, url.searchParams.get("sandbox") ?? undefined)
          : "<!doctype html><title>A blog post</title><h1>A blog post</h1>";
      await route.fulfill({ contentType: "text/html", body });
      return;
    }
    if (url.pathname.startsWith("/indieauth/api/account")) accountApiCalls.push(url.pathname);
    // Pages, and GET /auth's hand-over to one; the pages' own requests go as they are.
    if (!route.request().isNavigationRequest() || route.request().method() !== "GET") {
      await route.continue();
      return;
    }
    const response = await route.fetch({ maxRedirects: 0 });
    const headers = Object.fromEntries(
      Object.entries(response.headers()).filter(([name]) => !REPLACED.includes(name.toLowerCase())),
    );
    await route.fulfill({ response, headers });
  });
  await context.route(`${ELSEWHERE}/**`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: framingPage(new URL(route.request().url()).searchParams.get("src") ?? ""),
    }),
  );
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterEach(async () => {
  await context.close();
  expect(pageErrors).toEqual([]);
});

function authorizationUrl(): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "s",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile create",
  });
  return `${server.baseUrl}/auth?${params}`;
}

/** The genuine sign-in page's address, its signed request in the fragment. */
async function signInPageUrl(): Promise<string> {
  const probe = await context.newPage();
  await probe.goto(authorizationUrl());
  await probe.locator("#password").waitFor();
  const url = probe.url();
  await probe.close();
  return url;
}

/** What a script of the framing or opening page finds in the page it holds. */
interface Reach {
  form: boolean;
  password: boolean;
  console: boolean;
}

const NOTHING: Reach = { form: false, password: false, console: false };

describe("the sign-in page, with the server's framing and opener headers replaced", () => {
  it.each([
    ["a page of the same origin", (src: string) => `${server.baseUrl}/framer?src=${encodeURIComponent(src)}`],
    ["another site", (src: string) => `${ELSEWHERE}/?src=${encodeURIComponent(src)}`],
  ])(
    "framed by %s: shows no password field, only a message with a link that opens it on its own",
    async (_, framer) => {
      const signIn = await signInPageUrl();
      await page.goto(framer(signIn));
      const frame = page.frameLocator("iframe");
      await frame.getByRole("heading", { name: "Open the sign-in page on its own" }).waitFor();
      await expect(frame.locator("#password").count()).resolves.toBe(0);
      await expect(frame.locator("form").count()).resolves.toBe(0);
      const link = frame.getByRole("link", { name: "Open the sign-in page in a window of its own" });
      await expect(link.getAttribute("href")).resolves.toBe(signIn);
      await expect(link.getAttribute("target")).resolves.toBe("_blank");
      await expect(link.getAttribute("rel")).resolves.toBe("noopener noreferrer");
    },
  );

  it.each([
    // An origin of its own: the page's module script, fetched with CORS, does not even load (and
    // would refuse as in any frame if it did).
    ["scripts allowed", "allow-scripts"],
    ["no scripts", ""],
  ])("in a sandboxed frame, %s: the form never shows", async (_, sandbox) => {
    const signIn = await signInPageUrl();
    await page.goto(`${server.baseUrl}/framer?sandbox=${sandbox}&src=${encodeURIComponent(signIn)}`);
    // Loaded, its script run or refused: the page is there (whose sign-in it is), its form is not.
    const frame = page.frames().find((candidate) => candidate.url().startsWith(`${server.baseUrl}/indieauth/sign-in/`));
    if (!frame) throw new Error("the sign-in page is not framed");
    await frame.waitForLoadState("load");
    await frame.getByText("Signing in as").waitFor();
    await expect(frame.locator("#consent").isVisible()).resolves.toBe(false);
    await expect(frame.locator("#password").isVisible()).resolves.toBe(false);
  });

  it("framed by a page of the same origin: the page's own script reaches no form in it", async () => {
    const signIn = await signInPageUrl();
    await page.goto(`${server.baseUrl}/framer?src=${encodeURIComponent(signIn)}`);
    await page.frameLocator("iframe").getByRole("heading", { name: "Open the sign-in page on its own" }).waitFor();
    const reach = await page.evaluate((): Reach => {
      const framed = document.querySelector("iframe")!.contentDocument!;
      return {
        form: framed.querySelector("form") !== null,
        password: framed.querySelector("#password") !== null,
        console: false,
      };
    });
    expect(reach).toEqual(NOTHING);
  });

  // A blog script gets a signed request as any client does (GET /auth answers it the sign-in
  // page's address) and opens that address. (GET /auth's own 303 carries the functions' COOP,
  // which cuts the handle on the way: test/adversarial/attacks/cross-site-and-headers.test.ts.)
  it("opened with window.open by a page that keeps the handle: the opener gets no form, the link opens it on its own", async () => {
    const url = await signInPageUrl();
    await page.goto(`${server.baseUrl}/opener`);
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      page.evaluate((target) => void (window.opened = window.open(target)), url),
    ]);
    await popup.getByRole("heading", { name: "Open the sign-in page on its own" }).waitFor();
    // The handle is real: nothing but the page itself stands between the opener and the form.
    await expect(popup.evaluate(() => window.opener !== null)).resolves.toBe(true);
    const reach = await page.evaluate((): Reach => {
      const opened = window.opened!.document;
      return {
        form: opened.querySelector("form") !== null,
        password: opened.querySelector("#password") !== null,
        console: false,
      };
    });
    expect(reach).toEqual(NOTHING);

    // The person follows the link: the page, on its own, asks for the password and signs in.
    const [own] = await Promise.all([
      context.waitForEvent("page"),
      popup.getByRole("link", { name: "Open the sign-in page in a window of its own" }).click(),
    ]);
    own.on("pageerror", (error) => pageErrors.push(error.message));
    await expect(own.evaluate(() => window.opener === null && window.top === window)).resolves.toBe(true);
    await own.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await readyToApprove(own);
    await Promise.all([
      own.waitForURL(`${client.origin}/callback**`),
      own.getByRole("button", { name: "Approve", exact: true }).click(),
    ]);
    expect(new URL(own.url()).searchParams.get("code")).toMatch(/^ic_/);
  });

  it("on its own (the same headers replaced), the page works as ever", async () => {
    await page.goto(authorizationUrl());
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await readyToApprove(page);
    await Promise.all([
      page.waitForURL(`${client.origin}/callback**`),
      page.getByRole("button", { name: "Approve", exact: true }).click(),
    ]);
    expect(new URL(page.url()).searchParams.get("code")).toMatch(/^ic_/);
  });
});

describe("the account page, with the same headers replaced", () => {
  it("framed by a page of the same origin: shows nothing of the console, asks nothing of its API", async () => {
    await page.goto(`${server.baseUrl}/framer?src=${encodeURIComponent(ACCOUNT_PAGE)}`);
    const frame = page.frameLocator("iframe");
    await frame.getByRole("heading", { name: "Open the account page on its own" }).waitFor();
    const reach = await page.evaluate((): Reach => {
      const framed = document.querySelector("iframe")!.contentDocument!;
      return {
        form: framed.querySelector("form") !== null,
        password: framed.querySelector("#password") !== null,
        console: framed.querySelector("#console-view") !== null,
      };
    });
    expect(reach).toEqual(NOTHING);
    expect(accountApiCalls).toEqual([]);
  });

  it("opened with window.open by a page that keeps the handle: the opener reaches nothing of it", async () => {
    await page.goto(`${server.baseUrl}/opener`);
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      page.evaluate((target) => void (window.opened = window.open(target)), ACCOUNT_PAGE),
    ]);
    await popup.getByRole("heading", { name: "Open the account page on its own" }).waitFor();
    await expect(popup.evaluate(() => window.opener !== null)).resolves.toBe(true);
    const reach = await page.evaluate((): Reach => {
      const opened = window.opened!.document;
      return {
        form: opened.querySelector("form") !== null,
        password: opened.querySelector("#password") !== null,
        console: opened.querySelector("#console-view") !== null,
      };
    });
    expect(reach).toEqual(NOTHING);
    expect(accountApiCalls).toEqual([]);
  });

  it("on its own, it asks for the password", async () => {
    await page.goto(`${server.baseUrl}${ACCOUNT_PAGE}`);
    await page.getByLabel("Password", { exact: true }).waitFor();
  });
});

declare global {
  interface Window {
    opened?: Window | null;
  }
}

// The build plugin's shared-origin setup in a real Chromium: the server added to a blog on the
// blog's own host (functions built as the plugin builds them, the plugin's _headers block, and a
// page of the blog at /blog/ with none of the server's headers). What a script on a blog page can
// still do there with the owner's session, and what it no longer can.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { pkcePair } from "../helpers/requests.ts";

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
const contexts: BrowserContext[] = [];
let pageErrors: string[];

beforeAll(async () => {
  [server, client, browser] = await Promise.all([
    startNetlifyDev({ PROFILE_NAME: "Jane Doe" }, { blog: true }),
    startClientSite(),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
});

beforeEach(() => {
  pageErrors = [];
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close()));
  expect(pageErrors).toEqual([]);
});

async function newDevice(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  // The console asks in its own dialog here, never with the browser's confirm().
  page.on("dialog", (dialog) => {
    pageErrors.push(`browser dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page };
}

function authorizationUrl(challenge = pkcePair().challenge): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "state-1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "profile create",
  });
  return `${server.baseUrl}/auth?${params}`;
}

/** What the blog page's script can reach through the window it opened. */
interface Reach {
  closed: boolean;
  title: string;
  wrote: boolean;
}

declare global {
  interface Window {
    opened?: Window | null;
  }
}

describe("a script on a blog page that opens the genuine sign-in page", () => {
  it("keeps no handle to it: it can neither read the page nor rewrite it, through the 303 from /auth", async () => {
    const { context, page } = await newDevice();
    const blog = await page.goto(`${server.baseUrl}/blog/`);
    // The blog's page is the blog's: none of the server's headers, so nothing of ours protects it.
    expect(blog?.headers()["cross-origin-opener-policy"]).toBeUndefined();

    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      page.evaluate((url) => void (window.opened = window.open(url, "_blank")), authorizationUrl()),
    ]);
    await popup.waitForURL("**/indieauth/sign-in/**");
    await popup.getByLabel("Password", { exact: true }).waitFor();

    const reach = await page.evaluate((): Reach => {
      const opened = window.opened;
      let title = "(unreadable)";
      let wrote = false;
      try {
        title = opened?.document.title ?? "(no handle)";
      } catch {
        // cross-origin access refused
      }
      try {
        opened!.document.body.innerHTML = "<form><input name=password></form>";
        wrote = true;
      } catch {
        // refused
      }
      return { closed: opened?.closed ?? true, title, wrote };
    });
    expect(reach).toEqual({ closed: true, title: "(unreadable)", wrote: false });
    // And the sign-in page does not know who opened it.
    expect(await popup.evaluate(() => window.opener === null)).toBe(true);
    await expect(popup.getByLabel("Password", { exact: true }).isVisible()).resolves.toBe(true);
  });
});

/** Approves the test client on the sign-in page with the password and redeems the code: the
 * console then lists one app. */
async function authoriseClient(page: Page): Promise<void> {
  const { verifier, challenge } = pkcePair();
  await page.goto(authorizationUrl(challenge));
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await readyToApprove(page);
  await Promise.all([
    page.waitForURL(`${client.origin}/callback**`),
    page.getByRole("button", { name: "Approve", exact: true }).click(),
  ]);
  const code = new URL(page.url()).searchParams.get("code")!;
  const redeemed = await fetch(`${server.baseUrl}/token`, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: `${client.origin}/`,
      redirect_uri: `${client.origin}/callback`,
      code_verifier: verifier,
    }),
  });
  expect(redeemed.status).toBe(200);
}

async function signInToConsole(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/indieauth/account/`);
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.locator("#console-view").waitFor();
}

describe("the console, sharing the blog's origin", () => {
  it("asks for the password in its dialog before Revoke all, refuses a wrong one there, and revokes with the right one", async () => {
    const { page } = await newDevice();
    await authoriseClient(page);
    await signInToConsole(page);
    await expect(page.locator("#app-list li").count()).resolves.toBe(1);

    await page.getByRole("button", { name: "Revoke all" }).click();
    const dialog = page.locator("#confirm-dialog");
    await dialog.waitFor();
    await expect(dialog.textContent()).resolves.toContain("a script on the blog could act with your session");
    await dialog.getByLabel("Your password").fill("wrong password");
    await page.getByRole("button", { name: "Revoke with my password" }).click();
    await page.locator("#confirm-error", { hasText: "password is not right" }).waitFor();
    await expect(page.locator("#app-list li").count()).resolves.toBe(1);

    await dialog.getByLabel("Your password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Revoke with my password" }).click();
    await page.locator("#status", { hasText: "1 app no longer holds a token" }).waitFor();
    await expect(dialog.isVisible()).resolves.toBe(false);
    await expect(page.locator("#apps-empty").isVisible()).resolves.toBe(true);
  });

  it("asks for it before Sign out everywhere too; Cancel signs nobody out", async () => {
    const { page } = await newDevice();
    await signInToConsole(page);
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    const dialog = page.locator("#confirm-dialog");
    await dialog.waitFor();
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog.isVisible()).resolves.toBe(false);
    await expect(page.locator("#console-view").isVisible()).resolves.toBe(true);

    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await dialog.getByLabel("Your password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign out with my password" }).click();
    await page.locator("#sign-in-view").waitFor();
  });
});

describe("the server's cookies, sharing the blog's origin", () => {
  it("no cookie of the server goes to a blog page: the session and the known device reach only /auth and /indieauth/api", async () => {
    const { page } = await newDevice();
    await signInToConsole(page);
    const cookies = new Map<string, Promise<string>>();
    page.on(
      "request",
      (request) =>
        void cookies.set(
          new URL(request.url()).pathname,
          request.allHeaders().then((h) => h.cookie ?? ""),
        ),
    );

    await page.goto(`${server.baseUrl}/blog/`);
    // A blog script may still call the console's API (same origin, documented), and that request carries the session.
    expect(await page.evaluate(async () => (await fetch("/indieauth/api/account/session")).status)).toBe(200);
    expect(await page.evaluate(async () => (await fetch("/blog/index.html")).status)).toBe(200);

    expect(await cookies.get("/blog/")).not.toMatch(/indieauth_(session|device)=/);
    expect(await cookies.get("/blog/index.html")).not.toMatch(/indieauth_(session|device)=/);
    expect(await cookies.get("/indieauth/api/account/session")).toMatch(/indieauth_session=/);
    // What the browser itself would send to a blog path, and to the server's.
    const names = async (path: string) =>
      (await page.context().cookies(`${server.baseUrl}${path}`)).map((c) => `${c.name} ${c.path}`).sort();
    expect(await names("/blog/")).toEqual([]);
    expect(await names("/")).toEqual([]);
    expect(await names("/auth")).toEqual(["indieauth_session /auth"]);
    expect(await names("/indieauth/api/account")).toEqual([
      "indieauth_device /indieauth/api",
      "indieauth_session /indieauth/api",
    ]);
  });
});

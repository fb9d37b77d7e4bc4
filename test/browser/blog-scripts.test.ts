// The build plugin's shared-origin setup in a real Chromium: the server added to a blog on the
// blog's own host (functions built as the plugin builds them, the plugin's _headers block, and a
// page of the blog at /blog/ with none of the server's headers). What a script on a blog page can
// still do there with the owner's session, and what it no longer can.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
const contexts: BrowserContext[] = [];
let pageErrors: string[];

beforeAll(async () => {
  [server, client, browser] = await Promise.all([startNetlifyDev({ PROFILE_NAME: "Jane Doe" }, { blog: true }), startClientSite(), launchChromium()]);
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
  return { context, page };
}

function authorizationUrl(): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "state-1",
    code_challenge: pkcePair().challenge,
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

    const [popup] = await Promise.all([context.waitForEvent("page"), page.evaluate((url) => void (window.opened = window.open(url, "_blank")), authorizationUrl())]);
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

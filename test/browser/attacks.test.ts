// Attack catalogue, the browser half of "script injection" (test/adversarial/attacks/ holds the
// rest): an app authorised with a hostile name, logo and scope, as the owner's console shows it
// in a real Chromium against the real functions under `netlify dev`. The values reach the
// console as JSON and must be shown as text only: no markup, no handler, no script, no
// javascript: image. (The sign-in page's half is in sign-in.test.ts, "hostile values show as
// text and run nothing".)
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { signRequest } from "../../netlify/lib/protocol/request-object.ts";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { launchChromium } from "../helpers/browser.ts";
import { TEST_PASSWORD, TEST_SECRET } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const NAME = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>"'&amp;`;
/** A valid scope token (no space, no quote, no backslash) that is also markup. */
const SCOPE = "<svg/onload=window.__pwned=3>";
const LOGOS = {
  script: "javascript:window.__pwned=4",
  svg: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' onload='window.__pwned=5'/>",
  attribute: `https://127.0.0.1:9/logo.png"onerror="window.__pwned=6`,
};

let server: NetlifyDev;
let browser: Browser;
let context: BrowserContext;
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
  expect(pageErrors.splice(0)).toEqual([]);
});

/** An app signs in with what it claims about itself, as the server carries it (the signed
 * request) and gets its tokens: the grant then holds the claims for the console. */
async function authorise(host: string, logoUri: string): Promise<void> {
  const clientId = `https://${host}/`;
  const redirectUri = `https://${host}/callback`;
  const { verifier, challenge } = pkcePair();
  const request = await signRequest(
    {
      clientId,
      redirectUri,
      state: "s",
      codeChallenge: challenge,
      scopes: ["create", SCOPE],
      client: { name: NAME, logoUri },
    },
    deriveKey(TEST_SECRET, "authorization-request"),
    `${server.baseUrl}/`,
    Date.now(),
  );
  const form = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
  form.append("scope", "create");
  form.append("scope", SCOPE);
  const approved = await fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: server.baseUrl },
    body: form,
  });
  expect(approved.status).toBe(302);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const tokens = await fetch(`${server.baseUrl}/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      client_id: clientId,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
  });
  expect(tokens.status).toBe(200);
}

async function openConsole(): Promise<Page> {
  context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("dialog", (dialog) => {
    pageErrors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(`${server.baseUrl}/indieauth/account/`);
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.locator("#console-view").waitFor();
  return page;
}

describe("script injection: an app's hostile claims in the owner's console", () => {
  it("its name and scope show as text; javascript:, data: and quote-breaking logos run nothing", async () => {
    await authorise("script-logo.example", LOGOS.script);
    await authorise("svg-logo.example", LOGOS.svg);
    await authorise("attribute-logo.example", LOGOS.attribute);
    const page = await openConsole();
    const apps = page.locator("#app-list > li[data-app-id]");
    await expect.poll(() => apps.count()).toBe(3);

    for (const host of ["script-logo.example", "svg-logo.example", "attribute-logo.example"]) {
      const app = apps.filter({ hasText: `https://${host}/` });
      await expect(app.textContent()).resolves.toContain(NAME);
      await expect(app.textContent()).resolves.toContain(SCOPE);
    }
    // Only the web address is ever shown as a logo, through this server's own logo path, with
    // the address as a plain value of its query.
    const logos = await page.locator("#app-list img").evaluateAll((imgs) => imgs.map((img) => img.getAttribute("src")));
    expect(logos).toHaveLength(1);
    const shown = new URL(logos[0]!, server.baseUrl);
    expect([shown.origin, shown.pathname, shown.searchParams.get("src")]).toEqual([
      new URL(server.baseUrl).origin,
      "/auth/logo",
      LOGOS.attribute,
    ]);

    const injected = await page.evaluate(() => ({
      pwned: (window as { __pwned?: number }).__pwned,
      handlers: [...document.querySelectorAll("*")].flatMap((el) =>
        [...el.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${el.tagName}[${a.name}]`),
      ),
      foreign: document.querySelectorAll("#console-view script, #console-view svg, #console-view img[src='x']").length,
    }));
    expect(injected).toEqual({ pwned: undefined, handlers: [], foreign: 0 });
  });
});

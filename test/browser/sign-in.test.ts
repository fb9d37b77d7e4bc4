// The sign-in page in a real Chromium, against the real functions under `netlify dev`.
// Screenshots (light, dark, 375 px) are saved under test/output/screenshots/.
import { mkdir } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { signRequest } from "../../netlify/lib/protocol/request-object.ts";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { SIGN_IN_PAGE } from "../../netlify/lib/pages/paths.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD, TEST_SECRET } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  [server, client, browser] = await Promise.all([startNetlifyDev(), startClientSite(), launchChromium()]);
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
  pageErrors = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("dialog", (dialog) => {
    pageErrors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
});
afterEach(async () => {
  await context.close();
  expect(pageErrors).toEqual([]);
});

function authorizationUrl(extra: Record<string, string> = {}, challenge = pkcePair().challenge): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "state-42",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "profile create update",
    me: "https://jane.example/",
    ...extra,
  });
  return `${server.baseUrl}/auth?${params}`;
}

async function openSignIn(url = authorizationUrl()): Promise<void> {
  await page.goto(url);
  await page.getByRole("button", { name: "Approve" }).waitFor();
}

async function submitAndLandAtClient(button: "Approve" | "Deny"): Promise<URL> {
  if (button === "Approve") await readyToApprove(page);
  await Promise.all([
    page.waitForURL(`${client.origin}/callback**`),
    page.getByRole("button", { name: button }).click(),
  ]);
  return new URL(page.url());
}

describe("the sign-in page", () => {
  it("shows the client, its address and the requested scopes", async () => {
    await openSignIn();
    const host = new URL(client.origin).host;
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain(host);
    await expect(page.locator("#client-host").textContent()).resolves.toBe(`${client.origin}/`);
    for (const scope of ["profile", "create", "update"]) {
      await expect(page.getByRole("checkbox", { name: new RegExp(`^${scope}\\b`) }).isChecked()).resolves.toBe(true);
    }
    await expect(page.getByLabel("Password").isVisible()).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-light.png`, fullPage: true });
  });

  it("shows the return address when it leaves the app's path, even on the app's own host", async () => {
    const alice = `${client.origin}/~alice/app/`;
    await openSignIn(authorizationUrl({ client_id: alice, redirect_uri: `${client.origin}/~mallory/collect` }));
    await expect(page.locator("#redirect-note").isVisible()).resolves.toBe(true);
    await expect(page.locator("#redirect-host").textContent()).resolves.toBe(`${client.origin}/~mallory/collect`);
    await openSignIn(authorizationUrl({ client_id: alice, redirect_uri: `${alice}callback` }));
    await expect(page.locator("#redirect-note").isHidden()).resolves.toBe(true);
  });

  it("has a dark mode", async () => {
    await page.emulateMedia({ colorScheme: "dark" });
    await openSignIn();
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(17, 20, 24)");
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-dark.png`, fullPage: true });
  });

  it("fits a 375 px phone screen without sideways scrolling", async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await openSignIn();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-375.png`, fullPage: true });
  });

  it("says when a password is wrong, keeps the request, and then signs in", async () => {
    await openSignIn();
    await page.getByLabel("Password").fill("not the password");
    await readyToApprove(page);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("alert").waitFor();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("password is not right");
    await expect(page.getByRole("checkbox", { name: /^create\b/ }).isVisible()).resolves.toBe(true);

    await page.getByLabel("Password").fill(TEST_PASSWORD);
    const landed = await submitAndLandAtClient("Approve");
    expect(landed.searchParams.get("code")).toMatch(/^ic_/);
    expect(landed.searchParams.get("state")).toBe("state-42");
    expect(landed.searchParams.get("iss")).toBe(`${server.baseUrl}/`);
  });

  it("leaves an unticked scope out of the code", async () => {
    const { verifier, challenge } = pkcePair();
    await openSignIn(authorizationUrl({}, challenge));
    await page.getByRole("checkbox", { name: /^profile\b/ }).uncheck();
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    const landed = await submitAndLandAtClient("Approve");

    const answer = await fetch(`${server.baseUrl}/auth`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: landed.searchParams.get("code")!,
        client_id: `${client.origin}/`,
        redirect_uri: `${client.origin}/callback`,
        code_verifier: verifier,
      }),
    });
    expect(await answer.json()).toEqual({ me: "https://jane.example/" });
  });

  it("Deny for an app never approved says so on a page, whose link takes access_denied back; once approved, Deny goes back by itself", async () => {
    // A client_id of its own: the other tests here approve the usual one with the password.
    const url = () => authorizationUrl({ client_id: `${client.origin}/deny-test/` });
    await openSignIn(url());
    // Its loopback return address was never approved: no automatic redirect (anyone can name one).
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByText("You were not sent back to the app automatically").waitFor();
    await Promise.all([
      page.waitForURL(`${client.origin}/callback**`),
      page.getByRole("link", { name: "Back to the app" }).click(),
    ]);
    let landed = new URL(page.url());
    expect(landed.searchParams.get("error")).toBe("access_denied");
    expect(landed.searchParams.get("state")).toBe("state-42");
    expect(landed.searchParams.has("code")).toBe(false);

    await openSignIn(url());
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    expect((await submitAndLandAtClient("Approve")).searchParams.get("code")).toMatch(/^ic_/);
    await openSignIn(url());
    landed = await submitAndLandAtClient("Deny");
    expect(landed.searchParams.get("error")).toBe("access_denied");
    expect(landed.searchParams.get("state")).toBe("state-42");
    expect(landed.searchParams.has("code")).toBe(false);
  });

  it("is usable by keyboard alone", async () => {
    await openSignIn();
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("password");
    // A person reads the page first: keys pressed once it has been shown a moment turn Approve on.
    await page.locator("#approve-hint").waitFor();
    await page.keyboard.type(TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.keyboard.press("Enter")]);
    expect(new URL(page.url()).searchParams.get("code")).toMatch(/^ic_/);
  });
});

describe("a request that cannot be used is said before the password is asked", () => {
  const key = () => deriveKey(TEST_SECRET, "authorization-request");
  const requestAt = (issuedAt: number) =>
    signRequest(
      {
        clientId: `${client.origin}/`,
        redirectUri: `${client.origin}/callback`,
        state: "s",
        codeChallenge: pkcePair().challenge,
        scopes: ["create"],
        client: {},
      },
      key(),
      `${server.baseUrl}/`,
      issuedAt,
    );
  let consoleErrors: string[];

  beforeEach(() => {
    consoleErrors = [];
    page.on("console", (message) => void (message.type() === "error" && consoleErrors.push(message.text())));
  });
  afterEach(() => expect(consoleErrors).toEqual([]));

  async function openProblem(request: string): Promise<string> {
    await page.goto(`${server.baseUrl}${SIGN_IN_PAGE}#request=${request}`);
    await page.locator("#request-problem").waitFor();
    await expect(page.locator("#consent").isHidden()).resolves.toBe(true);
    await expect(page.getByLabel("Password").isVisible()).resolves.toBe(false);
    const text = (await page.locator("#request-problem").textContent())!;
    expect(text).toContain("Go back to the app and sign in again");
    return text;
  }

  it("expired: says so, with a link back to the app", async () => {
    const text = await openProblem(await requestAt(Date.now() - 16 * 60_000));
    expect(text).toContain("This sign-in request has expired");
    const back = page.getByRole("link", { name: `Back to ${new URL(client.origin).host}` });
    await expect(back.getAttribute("href")).resolves.toBe(`${client.origin}/`);
    await expect(page.title()).resolves.toBe("This sign-in request has expired");
  });

  it("changed ten seconds ago: says it was changed, never that it expired, and links nowhere it names", async () => {
    const [header, payload, signature] = (await requestAt(Date.now() - 10_000)).split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    claims.redirectUri = "https://evil.example/steal";
    const text = await openProblem(
      [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join("."),
    );
    expect(text).toContain("This sign-in request was changed");
    expect(text).not.toMatch(/expired/i);
    await expect(page.locator("#request-problem a:visible").count()).resolves.toBe(0);
  });

  it("cut short: says it is incomplete", async () => {
    const request = await requestAt(Date.now());
    const text = await openProblem(request.slice(0, request.length - 8));
    expect(text).toContain("This sign-in request is incomplete");
    expect(text).not.toMatch(/expired/i);
  });

  it("expiring while the page is open: the form gives way to the message, which takes the focus", async () => {
    await page.clock.install();
    await page.goto(`${server.baseUrl}${SIGN_IN_PAGE}#request=${await requestAt(Date.now())}`);
    await page.getByLabel("Password").fill("half typed");
    await page.clock.fastForward("15:01");
    await page.locator("#request-problem").waitFor();
    await expect(page.locator("#problem-title").textContent()).resolves.toBe("This sign-in request has expired");
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe("problem-title");
    await expect(page.locator("#consent").isHidden()).resolves.toBe(true);
    await expect(page.locator("#password").inputValue()).resolves.toBe("");
  });
});

describe("hostile values show as text and run nothing", () => {
  const payload = "<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>";

  it("in scope and state", async () => {
    const scope = "<script>window.__pwned=3</script>";
    const state = `"><script>window.__pwned=4</script>`;
    await openSignIn(authorizationUrl({ scope: `create ${scope}`, state }));
    await expect(page.locator("#scope-list").textContent()).resolves.toContain(scope);
    await expect(page.getByRole("checkbox", { name: /script/ }).isChecked()).resolves.toBe(false);
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    const landed = await submitAndLandAtClient("Approve");
    expect(landed.searchParams.get("state")).toBe(state);
    await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
  });

  it("in the client's name, logo and the `me` hint", async () => {
    const key = deriveKey(TEST_SECRET, "authorization-request");
    const request = await signRequest(
      {
        clientId: `${client.origin}/`,
        redirectUri: `${client.origin}/callback`,
        state: "s",
        codeChallenge: pkcePair().challenge,
        scopes: ["create"],
        meMismatch: `https://someone.example/\n\u2705 VERIFIED APP \u202e Press Approve ${payload}`,
        client: { name: payload, logoUri: `javascript:window.__pwned=5` },
      },
      key,
      `${server.baseUrl}/`,
      Date.now(),
    );
    await page.goto(`${server.baseUrl}${SIGN_IN_PAGE}#request=${request}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    await expect(page.locator("#client-name").textContent()).resolves.toBe(payload);
    // The `me` hint only as a short parsed URL, even from a request that carries it raw.
    const hint = (await page.locator("#me-hint").textContent())!;
    expect(hint).toMatch(/^as https:\/\/someone\.example\/[\x21-\x7e]{1,55}…$/);
    expect(hint).not.toContain("VERIFIED APP");
    await expect(page.locator("#client-logo").isHidden()).resolves.toBe(true);
    await expect(page.locator("img[src=x]").count()).resolves.toBe(0);
    await expect(page.evaluate(() => (window as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
  });
});

// The owner's side in a real Chromium against the real functions under `netlify dev`:
// "Keep me signed in", the console at /account (revoking an app, signing devices out), and
// passkeys through Chromium's virtual authenticator (the DevTools protocol's WebAuthn domain).
import { mkdir } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
const contexts: BrowserContext[] = [];
let pageErrors: string[];

beforeAll(async () => {
  [server, client, browser] = await Promise.all([
    startNetlifyDev({ PROFILE_NAME: "Jane Doe" }),
    startClientSite(),
    launchChromium(),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
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

/** A browser profile of its own (its own cookies): one "device". Confirm dialogs are accepted. */
async function newDevice(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("dialog", (dialog) => void (dialog.type() === "confirm" ? dialog.accept() : dialog.dismiss()));
  return page;
}

/** Gives the page a passkey-capable authenticator that verifies the user (PIN or biometrics). */
async function addVirtualAuthenticator(page: Page): Promise<{ credentials: () => Promise<{ rpId?: string }[]> }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials };
}

function authorizationUrl(challenge = pkcePair().challenge, scope = "profile create"): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "state-7",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
    me: "https://jane.example/",
  });
  return `${server.baseUrl}/auth?${params}`;
}

const approveButton = (page: Page) => page.getByRole("button", { name: "Approve", exact: true });

async function landAtClient(page: Page, action: () => Promise<unknown>): Promise<URL> {
  await Promise.all([page.waitForURL(`${client.origin}/callback**`), action()]);
  return new URL(page.url());
}

/** Signs in to the app on the sign-in page with the password; returns the code. */
async function signInWithPassword(
  page: Page,
  options: { remember: boolean; challenge?: string; scope?: string },
): Promise<string> {
  await page.goto(authorizationUrl(options.challenge, options.scope));
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  if (options.remember) await page.getByLabel("Keep me signed in on this device").check();
  await readyToApprove(page);
  const landed = await landAtClient(page, () => approveButton(page).click());
  return landed.searchParams.get("code")!;
}

async function openConsole(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/account`);
  await page.locator("#console-view, #sign-in-view").first().waitFor();
}

async function signInToConsole(page: Page): Promise<void> {
  await openConsole(page);
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.locator("#console-view").waitFor();
}

/** The client's side: redeems the code at the token endpoint. */
async function redeem(code: string, verifier: string): Promise<{ access_token: string; refresh_token?: string }> {
  const response = await fetch(`${server.baseUrl}/token`, {
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
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token?: string };
}

async function introspect(token: string): Promise<unknown> {
  const response = await fetch(`${server.baseUrl}/introspect`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
  });
  return response.json();
}

describe("Keep me signed in on this device", () => {
  it("the next sign-in asks only for Approve, and still sends the person back with a code", async () => {
    const page = await newDevice();
    await signInWithPassword(page, { remember: true });

    await page.goto(authorizationUrl());
    await approveButton(page).waitFor();
    await expect(page.locator("#session-note").isVisible()).resolves.toBe(true);
    await expect(page.getByLabel("Password", { exact: true }).isVisible()).resolves.toBe(false);
    await readyToApprove(page);
    const landed = await landAtClient(page, () => approveButton(page).click());
    expect(landed.searchParams.get("code")).toMatch(/^ic_/);
    expect(landed.searchParams.get("state")).toBe("state-7");
  });

  it("without ticking it, the next sign-in asks for the password again", async () => {
    const page = await newDevice();
    await signInWithPassword(page, { remember: false });
    await page.goto(authorizationUrl());
    await approveButton(page).waitFor();
    await expect(page.getByLabel("Password", { exact: true }).isVisible()).resolves.toBe(true);
  });

  it("a session signed out from another device no longer skips the password", async () => {
    const laptop = await newDevice();
    await signInWithPassword(laptop, { remember: true });
    const phone = await newDevice();
    await signInToConsole(phone);
    await phone.getByRole("button", { name: "Sign out everywhere" }).click();
    await phone.locator("#sign-in-view").waitFor();

    await laptop.goto(authorizationUrl());
    await approveButton(laptop).waitFor();
    await expect(laptop.getByLabel("Password", { exact: true }).isVisible()).resolves.toBe(true);
    await expect(laptop.locator("#session-note").isVisible()).resolves.toBe(false);
    // And the console asks the laptop to sign in again too.
    await openConsole(laptop);
    await expect(laptop.locator("#sign-in-view").isVisible()).resolves.toBe(true);
  });
});

describe("the console", () => {
  it("/account asks for the password, then shows the app; Revoke makes its token inactive at once", async () => {
    const page = await newDevice();
    const { verifier, challenge } = pkcePair();
    const code = await signInWithPassword(page, { remember: false, challenge });
    const tokens = await redeem(code, verifier);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true });

    await openConsole(page);
    expect(new URL(page.url()).pathname).toBe("/indieauth/account/");
    await expect(page.locator("#sign-in-view").isVisible()).resolves.toBe(true);
    await page.getByLabel("Password", { exact: true }).fill("wrong password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.locator("#sign-in-error", { hasText: "password is not right" }).waitFor();
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.locator("#console-view").waitFor();

    const apps = page.locator("#app-list > li[data-app-id]");
    await expect(apps.count()).resolves.toBeGreaterThanOrEqual(1);
    const app = apps.filter({ hasText: `${client.origin}/` }).first();
    await expect(app.textContent()).resolves.toContain("create");
    await expect(page.locator("#event-rows").textContent()).resolves.toContain("wrong password".slice(0, 5));
    await expect(page.locator("#device-list").textContent()).resolves.toContain("this device");

    const before = await apps.count();
    await app.getByRole("button", { name: "Revoke", exact: true }).click();
    await page.locator("#status", { hasText: "Revoked" }).waitFor();
    await expect.poll(() => apps.count(), { timeout: 15_000 }).toBe(before - 1);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
  });

  it("shows every scope the app holds: an earlier grant's `create` beside a later `profile`, until that grant is revoked", async () => {
    const page = await newDevice();
    const signIns = [];
    for (const scope of ["create", "profile"]) {
      const { verifier, challenge } = pkcePair();
      signIns.push(await redeem(await signInWithPassword(page, { remember: false, challenge, scope }), verifier));
    }
    await signInToConsole(page);
    const app = page.locator("#app-list > li[data-app-id]").filter({ hasText: `${client.origin}/` });
    const chips = app.locator(".chip");
    await expect(chips.allTextContents()).resolves.toEqual(["create · 1 of 2 grants", "profile · 1 of 2 grants"]);

    // The app revokes its `create` token itself (RFC 7009): the console then shows `profile` alone.
    const revoked = await fetch(`${server.baseUrl}/revoke`, {
      method: "POST",
      body: new URLSearchParams({ token: signIns[0]!.access_token }),
    });
    expect(revoked.status).toBe(200);
    await page.reload();
    await page.locator("#console-view").waitFor();
    await expect(chips.allTextContents()).resolves.toEqual(["profile"]);
    await app.getByRole("button", { name: "Revoke", exact: true }).click();
    await page.locator("#status", { hasText: "Revoked" }).waitFor();
  });

  it("fits a 375 px phone screen", async () => {
    const page = await newDevice();
    await page.setViewportSize({ width: 375, height: 740 });
    await signInToConsole(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await page.screenshot({ path: `${SCREENSHOTS}console-375.png`, fullPage: true });
  });
});

describe("the account page as a newcomer meets it", () => {
  /** The errors the browser logs in its console (a failed request is one). */
  function consoleErrors(page: Page): string[] {
    const errors: string[] = [];
    page.on("console", (message) => void (message.type() === "error" && errors.push(message.text())));
    return errors;
  }

  it("opens signed out, and then signed in, without an error in the browser's console", async () => {
    const page = await newDevice();
    const errors = consoleErrors(page);
    await openConsole(page);
    await expect(page.locator("#sign-in-view").isVisible()).resolves.toBe(true);
    await page.reload();
    await page.locator("#sign-in-view").waitFor();
    await signInToConsole(page);
    await page.reload();
    await page.locator("#console-view").waitFor();
    expect(errors).toEqual([]);
  });

  it("its sign-in is as wide as an app's sign-in page; signed in, the page uses the width", async () => {
    const page = await newDevice();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(authorizationUrl());
    await approveButton(page).waitFor();
    const appSignIn = (await page.locator(".card").first().boundingBox())!.width;
    await openConsole(page);
    const accountSignIn = (await page.locator("#sign-in-view").boundingBox())!.width;
    expect(accountSignIn).toBe(appSignIn);
    await signInToConsole(page);
    expect((await page.locator("#apps").boundingBox())!.width).toBeGreaterThan(appSignIn * 1.3);
  });

  it("its history calls a sign-in here the account page", async () => {
    const page = await newDevice();
    await signInToConsole(page);
    const where = await page.locator("#event-rows td[data-label=Where]").allTextContents();
    expect(where).toContain("Account page");
    expect(where.join(" ")).not.toContain("console");
  });
});

describe("passkeys", () => {
  it("are registered in the console (password asked again), then sign in to the console and approve an app", async () => {
    const page = await newDevice();
    const authenticator = await addVirtualAuthenticator(page);
    await signInToConsole(page);

    // The password is asked again before a passkey is added.
    await page.getByLabel("Name").fill("Test laptop");
    await page.getByLabel("Your password, to confirm it is you").fill("wrong password");
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.locator("#console-error", { hasText: "password is not right" }).waitFor();
    expect(await authenticator.credentials()).toEqual([]);

    await page.getByLabel("Your password, to confirm it is you").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.locator("#passkey-list > li[data-passkey-id]", { hasText: "Test laptop" }).waitFor();
    const credentials = await authenticator.credentials();
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.rpId).toBe("localhost");

    // Signed out, the console offers the passkey, and it signs in.
    await page.getByRole("button", { name: "Sign out", exact: true }).first().click();
    await page.locator("#sign-in-view").waitFor();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.locator("#console-view").waitFor();
    await page
      .locator("#event-rows tr")
      .first()
      .filter({ hasText: /Passkey/i })
      .waitFor();

    // Signed out again, an app's sign-in page offers it too, and it approves without the password.
    await page.getByRole("button", { name: "Sign out", exact: true }).first().click();
    await page.locator("#sign-in-view").waitFor();
    const { verifier, challenge } = pkcePair();
    await page.goto(authorizationUrl(challenge));
    const passkeyButton = page.getByRole("button", { name: "Approve with a passkey" });
    await passkeyButton.waitFor();
    // Behind the same gate as Approve: on once the person acts on the page.
    await readyToApprove(page);
    const landed = await landAtClient(page, () => passkeyButton.click());
    expect(landed.searchParams.get("code")).toMatch(/^ic_/);
    expect(landed.searchParams.get("state")).toBe("state-7");

    // The app redeems its code; the console (signed in with the passkey) lists it.
    await redeem(landed.searchParams.get("code")!, verifier);
    await openConsole(page);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.locator("#app-list > li[data-app-id]", { hasText: `${client.origin}/` }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}console.png`, fullPage: true });
  });

  // Runs after the test above, which registered this server's first passkey.
  it("a passkey this server does not know is refused with a message, and the password still works", async () => {
    const page = await newDevice();
    // A fresh authenticator holds no credential for this site: the browser finds none to use.
    await addVirtualAuthenticator(page);
    await page.goto(authorizationUrl());
    const passkeyButton = page.getByRole("button", { name: "Approve with a passkey" });
    await passkeyButton.waitFor();
    await readyToApprove(page);
    await passkeyButton.click();
    await page.locator("#error").waitFor();
    await expect(page.locator("#error").textContent()).resolves.toMatch(/passkey/i);
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await readyToApprove(page);
    const landed = await landAtClient(page, () => approveButton(page).click());
    expect(landed.searchParams.get("code")).toMatch(/^ic_/);
  });

  it("removing one asks again for the password or a passkey, in a dialog; a wrong password removes nothing", async () => {
    const page = await newDevice();
    await addVirtualAuthenticator(page);
    await signInToConsole(page);
    const addPasskey = async (name: string) => {
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Your password, to confirm it is you").fill(TEST_PASSWORD);
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.locator("#passkey-list > li[data-passkey-id]", { hasText: name }).waitFor();
    };
    const item = (name: string) => page.locator("#passkey-list > li[data-passkey-id]", { hasText: name });
    const dialog = page.locator("#confirm-dialog");
    await addPasskey("Phone");

    // Cancel leaves it be.
    await item("Phone").getByRole("button", { name: "Remove", exact: true }).click();
    await expect(dialog.textContent()).resolves.toContain("Phone");
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(dialog.isVisible()).resolves.toBe(false);

    // A wrong password is refused in the dialog; the right one removes it.
    await item("Phone").getByRole("button", { name: "Remove", exact: true }).click();
    await dialog.getByLabel("Your password").fill("wrong password");
    await page.getByRole("button", { name: "Remove with my password" }).click();
    await page.locator("#confirm-error", { hasText: "password is not right" }).waitFor();
    await expect(item("Phone").count()).resolves.toBe(1);
    await dialog.getByLabel("Your password").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Remove with my password" }).click();
    await page.locator("#status", { hasText: "Passkey removed" }).waitFor();
    await expect(dialog.isVisible()).resolves.toBe(false);
    await expect(item("Phone").count()).resolves.toBe(0);

    // A passkey confirms it too.
    await addPasskey("Tablet");
    await item("Tablet").getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByRole("button", { name: "Confirm with a passkey" }).click();
    await page.locator("#status", { hasText: "Passkey removed" }).waitFor();
    await expect(item("Tablet").count()).resolves.toBe(0);
  });
});

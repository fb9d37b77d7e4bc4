// Accessibility, checked: axe-core in a real Chromium on every page and state a person meets
// (the home page and its check, the sign-in page in each of its states, the functions' own
// pages, the account page signed out and signed in, the self-test's answer), each in light and
// dark and at desktop and phone width: zero violations, with every axe rule on. A screenshot of
// each is saved under test/output/accessibility/ (not committed) for a reviewer to look at.
// Then a sign-in with the keyboard alone, its focus visible at every step. One `netlify dev`,
// one browser, the states walked in order (the throttled page last: it locks the password).
import { createServer, type Server } from "node:http";
import { mkdir, writeFile } from "node:fs/promises";
import AxeBuilder from "@axe-core/playwright";
import type { Result } from "axe-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { ACCOUNT_PAGE, SELF_TEST_PAGE, SIGN_IN_PAGE } from "../../netlify/lib/pages/paths.ts";
import { signRequest } from "../../netlify/lib/protocol/request-object.ts";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { authorize } from "../helpers/endpoints.ts";
import { TEST_PASSWORD, TEST_SECRET } from "../helpers/env.ts";
import { freePort, startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { authorizationParams, pkcePair } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";

const OUTPUT = new URL("../output/accessibility/", import.meta.url).pathname;

const VARIANTS = [
  { name: "light-desktop", colorScheme: "light", viewport: { width: 1280, height: 800 } },
  { name: "dark-desktop", colorScheme: "dark", viewport: { width: 1280, height: 800 } },
  { name: "light-phone", colorScheme: "light", viewport: { width: 375, height: 740 } },
  { name: "dark-phone", colorScheme: "dark", viewport: { width: 375, height: 740 } },
] as const;

let blog: Server;
let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
const contexts: BrowserContext[] = [];
let pageErrors: string[];

beforeAll(async () => {
  await mkdir(OUTPUT, { recursive: true });
  // The owner's site, linking here, so that the home page's check has something to confirm.
  const blogPort = await freePort();
  let base = "";
  blog = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><title>Jane's blog</title><link rel="indieauth-metadata" href="${base}/.well-known/oauth-authorization-server">` +
        `<link rel="authorization_endpoint" href="${base}/auth"><link rel="token_endpoint" href="${base}/token"><h1>Jane's blog</h1>`,
    );
  });
  await new Promise<void>((resolve) => blog.listen(blogPort, "127.0.0.1", resolve));
  [server, client, browser] = await Promise.all([
    startNetlifyDev({ PROFILE_NAME: "Jane Doe", ME: `http://localhost:${blogPort}/` }),
    startClientSite(),
    launchChromium(),
  ]);
  base = server.baseUrl;
  pageErrors = [];
});
afterAll(async () => {
  await writeFile(
    `${OUTPUT}needs-review.txt`,
    needsReview.length ? `${needsReview.join("\n")}\n` : "axe left nothing undecided.\n",
  );
  await browser?.close();
  await client?.close();
  await server?.stop();
  await new Promise((resolve) => blog?.close(resolve));
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  expect(pageErrors).toEqual([]);
});

/** A browser profile of its own (its own cookies): one "device". */
async function newDevice(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return page;
}

/** What axe could not decide (a colour over an image, say), per state: for a reviewer. */
const needsReview: string[] = [];

/** axe on the page as it is now, in each colour scheme and width; a screenshot of each. (Our
 * pages have no frames, so axe runs in the page itself: "legacy mode" spares a tab per run.) */
async function audit(page: Page, state: string): Promise<void> {
  const found: string[] = [];
  const describe = (variant: string, result: Result) =>
    [
      `${state} ${variant}: ${result.id} (${result.impact ?? "?"}) ${result.help}`,
      ...result.nodes.map(
        (node) =>
          `  ${node.target.join(" ")}: ${[...node.any, ...node.all, ...node.none].map((check) => check.message).join(" ")}`,
      ),
    ].join("\n");
  for (const variant of VARIANTS) {
    await page.setViewportSize(variant.viewport);
    await page.emulateMedia({ colorScheme: variant.colorScheme });
    const { violations, incomplete } = await new AxeBuilder({ page }).setLegacyMode().analyze();
    found.push(...violations.map((result) => describe(variant.name, result)));
    needsReview.push(...incomplete.map((result) => describe(variant.name, result)));
    await page.screenshot({ path: `${OUTPUT}${state}-${variant.name}.png`, fullPage: true });
  }
  expect(found).toEqual([]);
}

function authorizationUrl(overrides: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "state-a11y",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile create update",
    ...overrides,
  });
  return `${server.baseUrl}/auth?${params}`;
}

const approveButton = (page: Page) => page.getByRole("button", { name: "Approve", exact: true });

async function openSignIn(page: Page, url = authorizationUrl()): Promise<void> {
  await page.goto(url);
  await approveButton(page).waitFor();
}

/** A request this server signed at `issuedAt` (ms), as GET /auth would. */
function signedAt(issuedAt: number): Promise<string> {
  const request = {
    clientId: `${client.origin}/`,
    redirectUri: `${client.origin}/callback`,
    state: "s",
    codeChallenge: pkcePair().challenge,
    scopes: ["create"],
    client: {},
  };
  return signRequest(request, deriveKey(TEST_SECRET, "authorization-request"), `${server.baseUrl}/`, issuedAt);
}

async function openRequestProblem(page: Page, request: string): Promise<void> {
  await page.goto(`${server.baseUrl}${SIGN_IN_PAGE}#request=${request}`);
  await page.locator("#request-problem").waitFor();
}

/** The focused element, and whether it shows that it has the focus (an outline or a shadow). */
function focus(page: Page): Promise<{ id: string; shown: boolean }> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!(element instanceof HTMLElement) || element === document.body) return { id: "(none)", shown: false };
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    const control = element as HTMLInputElement;
    return {
      id: element.id || `${control.name}:${control.value}`,
      shown: element.matches(":focus-visible") && (outline || style.boxShadow !== "none"),
    };
  });
}

describe("every page and state: zero axe violations, light and dark, desktop and phone", () => {
  it("the home page, before and after checking the owner's site", async () => {
    const page = await newDevice();
    await page.goto(`${server.baseUrl}/`);
    await audit(page, "home");
    await page.getByRole("button", { name: "Check my website" }).click();
    await page.locator("#link-report li").first().waitFor();
    await expect(page.locator("#link-report li.ok").count()).resolves.toBe(3);
    await audit(page, "home-checked");
  });

  it("the sign-in page with several scopes, an unknown one, a resource and notices", async () => {
    const page = await newDevice();
    const scope = "profile email create update delete media undelete";
    await openSignIn(
      page,
      authorizationUrl({ scope, me: "https://someone.example/", resource: "https://mcp.example/mcp" }),
    );
    await expect(page.locator("input[name=scope]").count()).resolves.toBe(7);
    await expect(page.locator("#resource-note").isVisible()).resolves.toBe(true);
    await expect(page.locator("#me-note").isVisible()).resolves.toBe(true);
    await audit(page, "sign-in-scopes");
  });

  it("the sign-in page for an app that registered itself (issue 32)", async () => {
    const page = await newDevice();
    const registration = {
      client_name: "Cursor",
      redirect_uris: ["http://localhost:8787/callback"],
      token_endpoint_auth_method: "none",
    };
    const registered = await fetch(`${server.baseUrl}/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(registration),
    });
    const { client_id: clientId } = (await registered.json()) as { client_id: string };
    await openSignIn(
      page,
      authorizationUrl({
        client_id: clientId,
        redirect_uri: "http://localhost:8787/callback",
        resource: "https://mcp.example/mcp",
      }),
    );
    await expect(page.locator("#registered-note").isVisible()).resolves.toBe(true);
    await audit(page, "sign-in-registered-app");
  });

  it("the sign-in page after a wrong password", async () => {
    const page = await newDevice();
    await openSignIn(page);
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await readyToApprove(page);
    await approveButton(page).click();
    await page.getByRole("alert").filter({ hasText: "password is not right" }).waitFor();
    await audit(page, "sign-in-wrong-password");
  });

  it("the sign-in page without a request, and with an expired, a changed and a cut-short one", async () => {
    const page = await newDevice();
    await page.goto(`${server.baseUrl}${SIGN_IN_PAGE}`);
    await page.locator("#no-request").waitFor();
    await audit(page, "sign-in-no-request");

    await openRequestProblem(page, await signedAt(Date.now() - 16 * 60_000));
    await expect(page.locator("#problem-title").textContent()).resolves.toContain("expired");
    await audit(page, "sign-in-expired");

    const [header, payload, signature] = (await signedAt(Date.now() - 10_000)).split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
    claims.scopes = ["create", "delete"];
    await openRequestProblem(
      page,
      [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join("."),
    );
    await expect(page.locator("#problem-title").textContent()).resolves.toContain("changed");
    await audit(page, "sign-in-changed");

    const request = await signedAt(Date.now());
    await openRequestProblem(page, request.slice(0, -10));
    await expect(page.locator("#problem-title").textContent()).resolves.toContain("incomplete");
    await audit(page, "sign-in-incomplete");
  });

  it("the 400 page (a request that cannot be trusted)", async () => {
    const page = await newDevice();
    const answer = await page.goto(`${server.baseUrl}/auth?client_id=nope&redirect_uri=nope`);
    expect(answer?.status()).toBe(400);
    await audit(page, "refusal-400");
  });

  it("the denied page (the sign-in form posted from another site)", async () => {
    const page = await newDevice();
    await page.goto(`${client.origin}/`);
    const answer = page.waitForResponse(`${server.baseUrl}/auth/approve`);
    await page.evaluate((action) => {
      const form = document.createElement("form");
      form.method = "post";
      form.action = action;
      document.body.append(form);
      form.submit();
    }, `${server.baseUrl}/auth/approve`);
    expect((await answer).status()).toBe(403);
    await page.locator("h1").waitFor();
    await audit(page, "denied-403");
  });

  it("the setup page (an environment that is not complete)", async () => {
    // The page the functions answer with while SECRET is missing, as the approve step renders
    // it in-process, shown at this server's address so that its stylesheet is the real one.
    const rt = await testRuntime({
      env: { SECRET: "", NETLIFY_DEV: "true", BASE_URL: server.baseUrl, ME: server.env.ME! },
    });
    const setup = await authorize(rt, authorizationParams(), { Accept: "text/html" });
    expect(setup.status).toBe(500);
    const html = await setup.text();
    expect(html).toContain("finish the setup");
    const page = await newDevice();
    const atSetup = (url: URL) => url.origin === server.baseUrl && url.pathname === "/auth" && url.search === "?setup";
    await page.route(atSetup, (route) =>
      route.fulfill({ status: 500, contentType: "text/html; charset=utf-8", body: html }),
    );
    await page.goto(`${server.baseUrl}/auth?setup`);
    await audit(page, "setup");
  });

  it("the account page signed out, then signed in with apps, passkeys and devices", async () => {
    const page = await newDevice();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("WebAuthn.enable", { enableUI: false });
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    // An app holds a token, signed in with "Keep me signed in" (a device).
    const { verifier, challenge } = pkcePair();
    await openSignIn(page, authorizationUrl({ code_challenge: challenge, scope: "profile create" }));
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await page.getByLabel("Keep me signed in on this device").check();
    await readyToApprove(page);
    await Promise.all([page.waitForURL(`${client.origin}/callback**`), approveButton(page).click()]);
    const code = new URL(page.url()).searchParams.get("code")!;
    const tokens = await fetch(`${server.baseUrl}/token`, {
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
    expect(tokens.status).toBe(200);

    const signedOut = await newDevice();
    await signedOut.goto(`${server.baseUrl}${ACCOUNT_PAGE}`);
    await signedOut.locator("#sign-in-view").waitFor();
    await audit(signedOut, "account-signed-out");

    await page.goto(`${server.baseUrl}${ACCOUNT_PAGE}`);
    await page.locator("#console-view").waitFor();
    await page.getByLabel("Name").fill("Laptop");
    await page.getByLabel("Your password, to confirm it is you").fill(TEST_PASSWORD);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.locator("#passkey-list > li[data-passkey-id]").first().waitFor();
    await page.locator("#app-list > li[data-app-id]").first().waitFor();
    await page.locator("#device-list > li").first().waitFor();
    await page.locator("#event-rows tr").first().waitFor();
    await audit(page, "account-signed-in");

    // The connection doctor: the app's attempt (logged after each answer: read until it shows),
    // and an MCP check's findings (a closed port on this machine: local development allows it).
    await expect
      .poll(async () => {
        await page.locator("#connections-show:enabled").click();
        await page.locator("#connections-show:enabled").waitFor();
        return page.locator("#connection-list details").count();
      })
      .toBeGreaterThan(0);
    await page.getByLabel("Your MCP server's URL").fill("http://127.0.0.1:9/mcp");
    await page.getByRole("button", { name: "Check", exact: true }).click();
    await page.locator("#mcp-findings > li").first().waitFor();
    await audit(page, "account-connection-doctor");

    await page.locator("#passkey-list").getByRole("button", { name: "Remove", exact: true }).click();
    await page.locator("#confirm-dialog").waitFor();
    await audit(page, "account-remove-passkey");
  });

  it("the self-test: its sign-in, and its answer", async () => {
    const page = await newDevice();
    await page.goto(`${server.baseUrl}/`);
    await Promise.all([
      page.waitForURL(`${server.baseUrl}${SIGN_IN_PAGE}**`),
      page.getByRole("button", { name: "Test sign-in" }).click(),
    ]);
    await approveButton(page).waitFor();
    await audit(page, "self-test-sign-in");
    await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
    await readyToApprove(page);
    await Promise.all([page.waitForURL(`${server.baseUrl}${SELF_TEST_PAGE}**`), approveButton(page).click()]);
    await page.locator("#result").waitFor();
    await expect(page.locator("#result-status").textContent()).resolves.toContain("It works");
    await audit(page, "self-test-result");
  });
});

describe("a sign-in with the keyboard alone", () => {
  it("Tab, Space and Enter reach everything, and the focus shows at every step", async () => {
    const page = await newDevice();
    await openSignIn(page, authorizationUrl({ scope: "profile create" }));
    // A person reads the page first: keys pressed once it has been shown a moment turn Approve on.
    await page.locator("#approve-hint").waitFor();
    const steps: { id: string; shown: boolean }[] = [];
    const step = async (key?: string) => {
      if (key) await page.keyboard.press(key);
      steps.push(await focus(page));
    };

    await step(); // the password field has the focus from the start
    await step("Shift+Tab"); // back to the last scope
    await page.keyboard.press("Space"); // untick it
    await expect(page.getByRole("checkbox", { name: /^create\b/ }).isChecked()).resolves.toBe(false);
    await step("Shift+Tab"); // the scope before it
    await step("Tab");
    await step("Tab"); // the password again
    await page.keyboard.type(TEST_PASSWORD);
    await step("Tab"); // Keep me signed in
    await step("Tab"); // Approve
    await step("Tab"); // Deny
    await step("Shift+Tab"); // Approve
    expect(steps.map((s) => s.id)).toEqual([
      "password",
      "scope:create",
      "scope:profile",
      "scope:create",
      "password",
      "remember",
      "approve",
      "decision:deny",
      "approve",
    ]);
    expect(steps.filter((s) => !s.shown)).toEqual([]);

    await Promise.all([page.waitForURL(`${client.origin}/callback**`), page.keyboard.press("Enter")]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get("code")).toMatch(/^ic_/);
  });
});

describe("the throttled page (last: it holds back the password)", () => {
  it("after too many wrong passwords", async () => {
    const page = await newDevice();
    await openSignIn(page);
    // Five wrong passwords from this browser (as the form would send them), then the form's own.
    await page.evaluate(async (attempts) => {
      const request = (document.getElementById("request") as HTMLInputElement).value;
      for (let i = 0; i < attempts; i++) {
        await fetch("/auth/approve", {
          method: "POST",
          body: new URLSearchParams({ request, decision: "approve", password: `wrong ${i}` }),
        });
      }
    }, 5);
    await page.getByLabel("Password", { exact: true }).fill("still wrong");
    await readyToApprove(page);
    const answer = page.waitForResponse(`${server.baseUrl}/auth/approve`);
    await approveButton(page).click();
    expect((await answer).status()).toBe(429);
    await page.locator("h1").waitFor();
    await audit(page, "throttled-429");
  });
});

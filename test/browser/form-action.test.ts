// The sign-in form's CSP form-action (site/scripts/form-action.ts), in a real Chromium against
// `netlify dev`. Chromium applies form-action to every redirect that follows the form's post, so
// the directive must let each approval (and each Deny or error) reach where the approve step
// sends it: an https app (and on, to another of its hosts), a loopback app (127.0.0.1, and
// [::1], which no CSP source can name), a native app's private-use scheme; and this page again
// after a wrong password. A form the page did not make, sent anywhere else, is refused.
// The https app is the test host (test-hosts.ts): Chromium reaches client.test and internal.test
// on loopback through its resolver rules, over the host's throw-away certificate.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";
import { startTestHost, withEnv, type TestHost } from "../helpers/test-hosts.ts";

let server: NetlifyDev;
let client: ClientSite;
let host: TestHost;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pageErrors: string[];
/** What the page's own CSP refused, as the page reports it. */
let violations: string[];
/** A loopback app on IPv6 ([::1]), where Chromium's request for the callback is seen. */
let ipv6App: Server;
let ipv6Port: number;

const NATIVE_REDIRECT = "com.example.app:/callback";
const PAGE = (body: string) => ({
  headers: { "Content-Type": "text/html; charset=utf-8" },
  body: `<!doctype html><title>App</title>${body}`,
});

beforeAll(async () => {
  host = await startTestHost();
  const port = new URL(host.origin).port;
  // Every client_id here answers (a failed fetch is remembered for the whole origin a while).
  host.serve("/", PAGE("<h1>An app</h1>"));
  host.serve("/hop/", PAGE("<h1>An app with two hosts</h1>"));
  host.serve("/callback", PAGE("<h1>Back at the app</h1>"));
  // An app whose callback sends the browser on to another of its hosts.
  host.serve("/hop/callback", {
    status: 302,
    headers: { Location: `https://internal.test:${port}/welcome` },
    body: "",
  });
  host.serve("/welcome", PAGE("<h1>Welcome</h1>"));
  // A native app: its metadata document lists its private-use scheme (RFC 8252 7.1).
  host.serve("/native.json", {
    body: JSON.stringify({
      client_id: `${host.origin}/native.json`,
      client_name: "A native app",
      redirect_uris: [NATIVE_REDIRECT],
      token_endpoint_auth_method: "none",
    }),
  });
  ipv6App = createServer((_req, res) => res.end("<!doctype html><title>App</title>"));
  await new Promise<void>((resolve) => ipv6App.listen(0, "::1", resolve));
  ipv6Port = (ipv6App.address() as AddressInfo).port;
  [server, client, browser] = await Promise.all([
    withEnv(host.netlifyDevEnv, () => startNetlifyDev()),
    startClientSite(),
    launchChromium(["--host-resolver-rules=MAP client.test 127.0.0.1, MAP internal.test 127.0.0.1"]),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
  await host?.close();
  await new Promise((resolve) => ipv6App?.close(resolve));
});

beforeEach(async () => {
  context = await browser.newContext({ ignoreHTTPSErrors: true });
  page = await context.newPage();
  pageErrors = [];
  violations = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on(
    "console",
    (message) => void (/Content Security Policy/.test(message.text()) && violations.push(message.text())),
  );
});
afterEach(async () => {
  await context.close();
  expect(pageErrors).toEqual([]);
});

function authorizationUrl(clientId: string, redirectUri: string): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    state: "state-17",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile",
  });
  return `${server.baseUrl}/auth?${params}`;
}

async function openSignIn(clientId: string, redirectUri: string): Promise<void> {
  await page.goto(authorizationUrl(clientId, redirectUri));
  await page.getByLabel("Password", { exact: true }).waitFor();
}

/** Approve with the password; resolves with the address the browser then went to. */
async function approveWithPassword(leadsTo: (url: string) => boolean, password = TEST_PASSWORD): Promise<URL> {
  await page.getByLabel("Password", { exact: true }).fill(password);
  await readyToApprove(page);
  const [request] = await Promise.all([
    page.waitForRequest((r) => r.isNavigationRequest() && leadsTo(r.url())),
    page.getByRole("button", { name: "Approve", exact: true }).click(),
  ]);
  return new URL(request.url());
}

describe("where an approval goes, through the sign-in form's form-action", () => {
  it("an https app: the browser lands on its callback with the code", async () => {
    await openSignIn(`${host.origin}/`, `${host.origin}/callback`);
    const sent = await approveWithPassword((url) => url.startsWith(`${host.origin}/callback`));
    expect(sent.searchParams.get("code")).toMatch(/^ic_/);
    await page.waitForURL(`${host.origin}/callback**`);
    await page.getByRole("heading", { name: "Back at the app" }).waitFor();
    expect(violations).toEqual([]);
  });

  it("an https app whose callback sends the browser on to another of its hosts: it gets there", async () => {
    await openSignIn(`${host.origin}/hop/`, `${host.origin}/hop/callback`);
    await approveWithPassword((url) => url.startsWith(`${host.origin}/hop/callback`));
    await page.waitForURL(`${host.internalOrigin}/welcome`);
    await page.getByRole("heading", { name: "Welcome" }).waitFor();
    expect(violations).toEqual([]);
  });

  it("a loopback app (127.0.0.1, any port): the browser lands on its callback with the code; Deny sends access_denied there too", async () => {
    await openSignIn(`${client.origin}/`, `${client.origin}/callback`);
    const sent = await approveWithPassword((url) => url.startsWith(`${client.origin}/callback`));
    expect(sent.searchParams.get("code")).toMatch(/^ic_/);
    await page.waitForURL(`${client.origin}/callback**`);

    // An error answer (Deny) goes back by redirect too, here where the app was approved before.
    await openSignIn(`${client.origin}/`, `${client.origin}/callback`);
    await Promise.all([
      page.waitForURL(`${client.origin}/callback**`),
      page.getByRole("button", { name: "Deny", exact: true }).click(),
    ]);
    expect(new URL(page.url()).searchParams.get("error")).toBe("access_denied");
    expect(violations).toEqual([]);
  });

  it("a loopback app on [::1] (no CSP source names an IPv6 host): the browser goes to its callback", async () => {
    const app = `http://[::1]:${ipv6Port}`;
    await openSignIn(`${app}/`, `${app}/callback`);
    const sent = await approveWithPassword((url) => url.startsWith(`${app}/callback`));
    expect(sent.searchParams.get("code")).toMatch(/^ic_/);
    expect(violations).toEqual([]);
  });

  it("a native app's private-use scheme: the browser goes to it, code and all", async () => {
    await openSignIn(`${host.origin}/native.json`, NATIVE_REDIRECT);
    const sent = await approveWithPassword((url) => url.startsWith(NATIVE_REDIRECT));
    expect(sent.protocol).toBe("com.example.app:");
    expect(sent.searchParams.get("code")).toMatch(/^ic_/);
    expect(violations).toEqual([]);
  });

  it("a wrong password: back at this page, which says so; then the right one reaches the app", async () => {
    await openSignIn(`${host.origin}/`, `${host.origin}/callback`);
    await page.getByLabel("Password", { exact: true }).fill("not the password");
    await readyToApprove(page);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "password is not right" }).waitFor();
    const sent = await approveWithPassword((url) => url.startsWith(`${host.origin}/callback`));
    expect(sent.searchParams.get("code")).toMatch(/^ic_/);
    expect(violations).toEqual([]);
  });

  it("a form the page did not make, sent anywhere else (here another local port): refused by the page's own policy", async () => {
    await openSignIn(`${host.origin}/`, `${host.origin}/callback`);
    const elsewhere = `${client.origin}/collect`;
    const stolen: string[] = [];
    page.on("request", (request) => void (request.url().startsWith(elsewhere) && stolen.push(request.url())));
    const directive = await page.evaluate(
      (action) =>
        new Promise<string>((resolve) => {
          document.addEventListener("securitypolicyviolation", (event) => resolve(event.effectiveDirective), {
            once: true,
          });
          const form = document.createElement("form");
          form.method = "post";
          form.action = action;
          form.innerHTML = '<input name="password" value="typed">';
          document.body.append(form);
          form.submit();
        }),
      elsewhere,
    );
    expect(directive).toBe("form-action");
    expect(stolen).toEqual([]);
  });
});

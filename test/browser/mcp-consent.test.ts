// What the sign-in page shows an owner about an MCP host's request, in a real Chromium against
// `netlify dev`: the client_id's host, prominently (CIMD draft 8.5), and the resource the token
// is for (RFC 8707), its host as prominently; for a host whose metadata document lists only
// loopback redirect URIs (Claude Code's), a warning that names the client_id's host; the app's
// logo from this server's own origin, the page asking nothing of any other; and for a host every
// user of a platform signs in as, to a signed-in owner, why the password is asked again.
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { signRequest } from "../../netlify/lib/protocol/request-object.ts";
import { launchChromium } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { TEST_SECRET } from "../helpers/env.ts";
import { pkcePair } from "../helpers/requests.ts";
import { startTestHost, withEnv, type TestHost } from "../helpers/test-hosts.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;
const RESOURCE = "https://mcp.tools.example/sse";

/** A 1×1 PNG, the app's logo. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
  "base64",
);

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;
/** The host's https website (client.test), where its metadata document and logo are. */
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost();
  [server, client, browser] = await Promise.all([
    withEnv(host.netlifyDevEnv, () => startNetlifyDev()),
    startClientSite(),
    launchChromium(),
  ]);
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
  await host?.close();
});

async function openSignIn(extra: Record<string, string>): Promise<Page> {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: `${client.origin}/`,
    redirect_uri: `${client.origin}/callback`,
    state: "state-7",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "create update",
    ...extra,
  });
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${server.baseUrl}/auth?${params}`);
  await page.getByRole("button", { name: "Approve" }).waitFor();
  return page;
}

describe("the sign-in page for an MCP host", () => {
  it("shows the app's host on its own line, then its full address", async () => {
    const page = await openSignIn({});
    await expect(page.locator("#client-domain").textContent()).resolves.toBe(new URL(client.origin).host);
    await expect(page.getByText(/^Website:/).isVisible()).resolves.toBe(true);
    await expect(page.locator("#client-host").textContent()).resolves.toBe(`${client.origin}/`);
    await expect(page.locator("#resource-note").isHidden()).resolves.toBe(true);
    // A loopback client_id is no metadata document: no warning.
    await expect(page.locator("#loopback-note").isHidden()).resolves.toBe(true);
    await page.context().close();
  });

  it("warns about a host whose document lists only loopback redirect URIs, naming its host, and shows its logo from this server alone", async () => {
    // Claude Code's document has port-less loopback redirect URIs (docs/research/mcp-hosts.md).
    const clientId = `${host.origin}/oauth/cli-metadata.json`;
    host.serve("/oauth/cli-metadata.json", {
      body: JSON.stringify({
        client_id: clientId,
        client_name: "Agent CLI",
        logo_uri: `${host.origin}/logo.png`,
        redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"],
        token_endpoint_auth_method: "none",
      }),
    });
    host.serve("/logo.png", { headers: { "Content-Type": "image/png" }, body: PNG });
    const params = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: `${client.origin}/callback`,
      state: "state-8",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      scope: "create",
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    // Every request the page makes, whatever it is for.
    const requested: string[] = [];
    context.on("request", (request) => requested.push(request.url()));
    const signIn = page.waitForResponse((response) => new URL(response.url()).pathname === "/indieauth/sign-in/");
    await page.goto(`${server.baseUrl}/auth?${params}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();

    const warning = page.locator("#loopback-note");
    await expect(warning.isVisible()).resolves.toBe(true);
    await expect(page.locator("#loopback-host").textContent()).resolves.toBe(new URL(host.origin).host);
    expect(await warning.textContent()).toMatch(
      /This app runs on a computer, not on\s+client\.test:\d+:[\s\S]*any program there could receive it instead\. Approve only if you just started this app yourself\./,
    );

    const logo = page.locator("#client-logo");
    await logo.evaluate((img: HTMLImageElement) => img.decode());
    await expect(logo.isVisible()).resolves.toBe(true);
    expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(1);
    expect(new URL((await logo.getAttribute("src"))!, server.baseUrl).pathname).toBe("/auth/logo");
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-loopback-agent.png`, fullPage: true });

    // The page asked its own origin for everything; the logo was fetched once, by the server.
    expect(requested.filter((url) => new URL(url).origin !== server.baseUrl)).toEqual([]);
    expect(requested.some((url) => new URL(url).pathname === "/auth/logo")).toBe(true);
    expect(host.requests.filter((path) => path === "/logo.png")).toEqual(["/logo.png"]);
    // Its images may come from nowhere else.
    expect((await (await signIn).allHeaders())["content-security-policy"]).toMatch(/img-src 'self';/);
    await context.close();
  });

  it("shows the host of the resource the sign-in is for on its own line, then its full address", async () => {
    const page = await openSignIn({ resource: RESOURCE });
    await expect(page.locator("#resource-note").isVisible()).resolves.toBe(true);
    await expect(page.locator("#resource-host").textContent()).resolves.toBe("mcp.tools.example");
    await expect(page.getByText(/^For use at:/).isVisible()).resolves.toBe(true);
    await expect(page.locator("#resource").textContent()).resolves.toBe(RESOURCE);
    // The host comes first, and reads larger than the full address.
    const size = (id: string) => page.locator(id).evaluate((element) => parseFloat(getComputedStyle(element).fontSize));
    expect(await size("#resource-host")).toBeGreaterThan(await size("#resource"));
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-mcp.png`, fullPage: true });
    await page.context().close();
  });

  it("shows the whole host of a resource whose address is cut short inside it", async () => {
    const host = `jane.example.${"a".repeat(60)}.evil.example`;
    const page = await openSignIn({ resource: `https://${host}/mcp` });
    await expect(page.locator("#resource").textContent()).resolves.toMatch(/^https:\/\/jane\.example\.a+…$/);
    await expect(page.locator("#resource-host").textContent()).resolves.toBe(host);
    await page.context().close();
  });

  it("refuses a resource whose user information would make another host read as the owner's", async () => {
    const page = await (await browser.newContext()).newPage();
    const params = new URLSearchParams({
      response_type: "code",
      client_id: `${client.origin}/`,
      redirect_uri: `${client.origin}/callback`,
      state: "state-7",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      scope: "create",
      resource: "https://jane.example@evil.example/mcp",
    });
    await page.goto(`${server.baseUrl}/auth?${params}`);
    // The redirect URI is verified (a loopback app's), so the error goes back to the app, and
    // the owner is never asked to approve; never approved before, by the link the person follows.
    await page.getByText("You were not sent back to the app automatically").waitFor();
    await page.getByRole("link", { name: "Back to the app" }).click();
    await page.getByText("Back at the client").waitFor();
    const back = client.callbacks.at(-1)!;
    expect(back.searchParams.get("error")).toBe("invalid_target");
    expect(back.searchParams.get("error_description")).toContain("user information");
    expect(back.searchParams.get("state")).toBe("state-7");
    await page.context().close();
  });

  it("shows the host a URL with user information really goes to, were one ever signed", async () => {
    const resource = "https://jane.example@evil.example/mcp";
    const request = await signRequest(
      {
        clientId: `${client.origin}/`,
        redirectUri: `${client.origin}/callback`,
        state: "s",
        codeChallenge: pkcePair().challenge,
        scopes: ["create"],
        resource,
        client: {},
      },
      deriveKey(TEST_SECRET, "authorization-request"),
      `${server.baseUrl}/`,
      Date.now(),
    );
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.baseUrl}/indieauth/sign-in/#request=${request}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    await expect(page.locator("#resource-host").textContent()).resolves.toBe("evil.example");
    await page.context().close();
  });

  it("shows offline_access in plain words, ticked, and ticks the resource's own default scopes", async () => {
    const page = await openSignIn({ scope: " create offline_access" });
    const offline = page.locator('input[name="scope"][value="offline_access"]');
    await expect(offline.isChecked()).resolves.toBe(true);
    await expect(page.getByText("Stay connected: renew access without asking you again").isVisible()).resolves.toBe(
      true,
    );
    await page.context().close();
    // A request whose scopes came from the resource's metadata (GET /auth signs them so).
    const request = await signRequest(
      {
        clientId: `${client.origin}/`,
        redirectUri: `${client.origin}/callback`,
        state: "s",
        codeChallenge: pkcePair().challenge,
        scopes: ["mcp:tools", "offline_access"],
        defaultScopes: ["mcp:tools"],
        resource: RESOURCE,
        client: {},
      },
      deriveKey(TEST_SECRET, "authorization-request"),
      `${server.baseUrl}/`,
      Date.now(),
    );
    const listed = await (await browser.newContext()).newPage();
    await listed.goto(`${server.baseUrl}/indieauth/sign-in/#request=${request}`);
    await listed.getByRole("button", { name: "Approve" }).waitFor();
    await expect(listed.locator('input[name="scope"][value="mcp:tools"]').isChecked()).resolves.toBe(true);
    await expect(
      listed.getByText("A permission the resource itself lists; the app named none.").isVisible(),
    ).resolves.toBe(true);
    await listed.context().close();
  });

  it("says what scopes allow in terms of the resource the request names, not IndieWeb's meanings (read is no feed reader there)", async () => {
    const request = await signRequest(
      {
        clientId: `${client.origin}/`,
        redirectUri: `${client.origin}/callback`,
        state: "s",
        codeChallenge: pkcePair().challenge,
        scopes: ["profile", "read", "create", "follow", "offline_access"],
        resource: RESOURCE,
        client: {},
      },
      deriveKey(TEST_SECRET, "authorization-request"),
      `${server.baseUrl}/`,
      Date.now(),
    );
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.baseUrl}/indieauth/sign-in/#request=${request}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    const said = await page.locator("#scope-list").textContent();
    expect(said).toContain("read Read what mcp.tools.example offers");
    expect(said).toContain("create Create things through mcp.tools.example");
    expect(said).toContain("follow What mcp.tools.example lets an app with “follow” do");
    // What this server itself answers for keeps its words.
    expect(said).toContain("profile See your name, photo and website");
    expect(said).toContain("offline_access Stay connected: renew access without asking you again");
    for (const indieWeb of ["feeds and channels", "posts on your site", "Follow and unfollow feeds"])
      expect(said).not.toContain(indieWeb);
    await page.context().close();

    // Without a resource, the IndieWeb meanings.
    const micropub = await openSignIn({ scope: "read create" });
    await expect(micropub.locator("#scope-list").textContent()).resolves.toContain("read Read your feeds and channels");
    await micropub.context().close();
  });

  it("asks a signed-in owner for the password for a new connection from a platform's app, and says why in plain words", async () => {
    // What GET /auth signs for a Client ID Metadata Document with an https redirect URI
    // (test/integration/app-approvals.test.ts proves the server says so).
    const request = await signRequest(
      {
        clientId: `${host.origin}/oauth/mcp-client.json`,
        redirectUri: `${host.origin}/api/callback`,
        state: "s",
        codeChallenge: pkcePair().challenge,
        scopes: ["create"],
        resource: RESOURCE,
        client: { name: "Platform" },
        clientRead: "metadata-document",
      },
      deriveKey(TEST_SECRET, "authorization-request"),
      `${server.baseUrl}/`,
      Date.now(),
      { offer: { session: false, passkey: false, password: true, signedIn: "shared-app" } },
    );
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${server.baseUrl}/indieauth/sign-in/#request=${request}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    const note = page.locator("#confirm-shared-note");
    await expect(note.isVisible()).resolves.toBe(true);
    expect((await note.textContent())!.replace(/\s+/g, " ")).toBe(
      "You are signed in, but each new connection from this app needs your password or a passkey: everyone who uses this app shares its address, so nothing here shows the connection is your own. Approve only if you just started it yourself.",
    );
    await expect(page.getByLabel("Password").isVisible()).resolves.toBe(true);
    for (const other of ["#session-note", "#confirm-app-note", "#confirm-site-note", "#confirm-login-note"])
      await expect(page.locator(other).isHidden(), other).resolves.toBe(true);
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-shared-app.png`, fullPage: true });
    await page.context().close();
  });
});

// What the sign-in page shows an owner about an MCP host's request, in a real Chromium against
// `netlify dev`: the client_id's host, prominently (CIMD draft 8.5), and the resource the token
// is for (RFC 8707).
import { mkdir } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const SCREENSHOTS = new URL("../output/screenshots/", import.meta.url).pathname;
const RESOURCE = "https://jane.example/mcp";

let server: NetlifyDev;
let client: ClientSite;
let browser: Browser;

beforeAll(async () => {
  [server, client, browser] = await Promise.all([startNetlifyDev(), startClientSite(), launchChromium()]);
  await mkdir(SCREENSHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await client?.close();
  await server?.stop();
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
    await page.context().close();
  });

  it("shows the resource the sign-in is for", async () => {
    const page = await openSignIn({ resource: RESOURCE });
    await expect(page.locator("#resource-note").isVisible()).resolves.toBe(true);
    await expect(page.locator("#resource").textContent()).resolves.toBe(RESOURCE);
    await expect(page.locator("#resource-note").textContent()).resolves.toMatch(/^For: https:\/\/jane\.example\/mcp/);
    await page.screenshot({ path: `${SCREENSHOTS}sign-in-mcp.png`, fullPage: true });
    await page.context().close();
  });
});

// The connection doctor in a real Chromium against `netlify dev`: after real sign-ins through
// the sign-in page, the Connections card shows an app that got its token and one whose code
// redemption /token refused (invalid_grant, a wrong code_verifier), with the fix; and "Check my
// MCP server" against blog functions served by this test on loopback (local development lets
// the address guard through, as for the alerts' receiver): one built with the resource API as
// documented, and one each with a common mistake (no challenge, wrong resource, wrong issuer,
// no scopes), each reported in the words and with the fix the owner sees.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resourceServer } from "../../netlify/lib/resource/server.ts";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { startClientSite, type ClientSite } from "../helpers/client-site.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { serveHandler, type HandlerServer } from "../helpers/handler-server.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

let server: NetlifyDev;
let client: ClientSite;
let blog: HandlerServer;
let browser: Browser;
let context: BrowserContext | undefined;
const pageErrors: string[] = [];

/** The blog's MCP endpoints: `right` as the resource API makes it, the others each with one mistake. */
function blogHandler(issuerOrigin: string): (req: Request) => Promise<Response> {
  const api = resourceServer({ env: { BASE_URL: issuerOrigin } });
  return async (req) => {
    const url = new URL(req.url);
    const wellKnown = url.pathname.match(/^\/\.well-known\/oauth-protected-resource\/([a-z-]+)\/mcp$/);
    const variant = wellKnown?.[1] ?? url.pathname.match(/^\/([a-z-]+)\/mcp$/)?.[1];
    if (!variant) return new Response("not found", { status: 404 });
    const resource = `${url.origin}/${variant}/mcp`;
    if (!wellKnown) {
      const refused = await api.requireToken(req, { resource, scope: "create" });
      if (!(refused instanceof Response)) return new Response("{}", { status: 200 });
      if (variant === "no-challenge")
        return new Response(await refused.text(), { status: 401, headers: { "Content-Type": "application/json" } });
      return refused;
    }
    const document: Record<string, unknown> = {
      ...api.protectedResourceMetadata({ resource, scopes: ["create"] }, req),
    };
    if (variant === "wrong-resource") document.resource = "https://blog.elsewhere.example/mcp";
    if (variant === "wrong-issuer") document.authorization_servers = ["https://auth.elsewhere.example/"];
    if (variant === "no-scopes") delete document.scopes_supported;
    return Response.json(document);
  };
}

beforeAll(async () => {
  [server, client, browser] = await Promise.all([startNetlifyDev(), startClientSite(), launchChromium()]);
  blog = await serveHandler(blogHandler(server.baseUrl));
});
afterAll(async () => {
  await browser?.close();
  await blog?.close();
  await client?.close();
  await server?.stop();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
  expect(pageErrors.splice(0)).toEqual([]);
});

async function newPage(): Promise<Page> {
  context ??= await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  return page;
}

/** A real sign-in of the app `clientId` through the sign-in page; answers the code and verifier. */
async function signInApp(clientId: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: `${client.origin}/callback`,
    state: "s-1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "create",
  });
  const page = await newPage();
  await page.goto(`${server.baseUrl}/auth?${params}`);
  await page.getByLabel("Password").fill(TEST_PASSWORD);
  await readyToApprove(page);
  await Promise.all([
    page.waitForURL(`${client.origin}/callback**`),
    page.getByRole("button", { name: "Approve" }).click(),
  ]);
  const code = new URL(page.url()).searchParams.get("code");
  await page.close();
  if (!code) throw new Error("no code");
  return { code, verifier };
}

function redeem(clientId: string, code: string, verifier: string): Promise<Response> {
  const form = {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: `${client.origin}/callback`,
  };
  return fetch(`${server.baseUrl}/token`, { method: "POST", body: new URLSearchParams(form) });
}

async function signedInConsole(): Promise<Page> {
  const page = await newPage();
  await page.goto(`${server.baseUrl}/account`);
  await page.getByLabel("Password", { exact: true }).fill(TEST_PASSWORD);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.locator("#console-view").waitFor();
  return page;
}

/** The text of one client's entry in the Connections card, read again until it shows `until`
 * (the log is written after each answer, so the card may be read before it). */
async function connectionText(page: Page, clientId: string, until: string): Promise<string> {
  const entry = page.locator("#connection-list > li", {
    has: page.getByRole("heading", { name: `${clientId} approved before`, exact: true }),
  });
  await expect
    .poll(
      async () => {
        await page.locator("#connections-show:enabled").click();
        await page.locator("#connections-show:enabled").waitFor();
        return (await entry.count()) > 0 ? ((await entry.first().textContent()) ?? "") : "";
      },
      { timeout: 30_000, interval: 250 },
    )
    .toContain(until);
  return (await entry.first().textContent()) ?? "";
}

describe("the Connections card", () => {
  it("shows an app that got its token, and one whose code /token refused, with the error and the fix", async () => {
    const good = `${client.origin}/`;
    const broken = `${client.origin}/broken/`;
    const first = await signInApp(good);
    expect((await redeem(good, first.code, first.verifier)).status).toBe(200);
    const second = await signInApp(broken);
    const refused = await redeem(broken, second.code, pkcePair().verifier);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe("invalid_grant");

    const page = await signedInConsole();
    await expect(page.locator("#connection-list > li").count()).resolves.toBe(0);
    const goodText = await connectionText(page, good, "The app redeemed its code for a token.");
    expect(goodText).toContain("The sign-in page was shown to you.");
    expect(goodText).toContain("You approved it; the app was sent its code.");
    expect(goodText).toContain(": Got as far as the token endpoint");
    // What comes after a step that went well is a note, never labelled a fix.
    expect(goodText).toContain(
      "The app redeemed its code for a token.The app holds a token now. If it still says it is not connected",
    );
    expect(goodText).not.toContain("Fix:");

    const brokenText = await connectionText(page, broken, "The token endpoint refused the code (invalid_grant)");
    expect(brokenText).toContain(": Stopped at the token endpoint");
    expect(brokenText).toContain(
      "Fix: The code (or refresh token) was refused: a code lives 10 minutes and works once, with the same redirect_uri and the code_verifier of its code_challenge",
    );
    // Nothing secret is shown: neither code appears anywhere on the page.
    const whole = (await page.locator("body").textContent()) ?? "";
    expect(whole).not.toContain(first.code);
    expect(whole).not.toContain(second.code);
  });
});

describe("Check my MCP server", () => {
  async function check(page: Page, variant: string): Promise<{ state: string; findings: string[] }> {
    await page.getByLabel("Your MCP server's URL").fill(`${blog.origin}/${variant}/mcp`);
    await page.getByRole("button", { name: "Check", exact: true }).click();
    const state = page.locator("#mcp-check-state", { hasText: `${blog.origin}/${variant}/mcp` });
    await state.waitFor();
    return {
      state: (await state.textContent()) ?? "",
      findings: await page.locator("#mcp-findings > li").allTextContents(),
    };
  }
  const problems = (findings: string[]) => findings.filter((f) => f.startsWith("✗"));

  it("finds nothing wrong with an MCP endpoint made with the resource API as documented", async () => {
    const page = await signedInConsole();
    const { findings } = await check(page, "right");
    expect(findings).toContain("✓ Your MCP server answers 401 to a request without a token.");
    expect(findings).toContain(
      `✓ The 401's challenge names the resource metadata: ${blog.origin}/.well-known/oauth-protected-resource/right/mcp.`,
    );
    expect(findings).toContain(`✓ Its authorization_servers names this server (${server.baseUrl}/).`);
    expect(findings).toContain("✓ Its resource is exactly your MCP URL.");
    expect(findings).toContain("✓ It lists the scopes hosts will ask for: create.");
    expect(findings.some((f) => f.startsWith("✓ This server says it accepts client metadata documents"))).toBe(true);
    expect(findings.some((f) => f.startsWith("✓ This server lists S256"))).toBe(true);
    // offline_access is read from the live metadata: whichever way it is, the owner is told.
    expect(findings.some((f) => /This server (lists|does not list) offline_access/.test(f))).toBe(true);
    expect(problems(findings).filter((f) => !f.includes("offline_access"))).toEqual([]);
  });

  it("reports each common mistake with its fix", async () => {
    const page = await signedInConsole();
    const noChallenge = await check(page, "no-challenge");
    expect(problems(noChallenge.findings)[0]).toBe(
      "✗ The 401 has no WWW-Authenticate: Bearer challenge, so hosts cannot tell where to sign in (claude.ai stops here).Fix: Return requireToken's Response as it is: it carries WWW-Authenticate: Bearer with resource_metadata. If you build the 401 yourself, add that header.",
    );
    expect(noChallenge.state).toMatch(/: \d+ to fix\.$/);

    const wrongResource = await check(page, "wrong-resource");
    expect(problems(wrongResource.findings)[0]).toBe(
      `✗ Its resource is https://blog.elsewhere.example/mcp, not your MCP URL ${blog.origin}/wrong-resource/mcp: VS Code stops there, and tokens will carry the wrong audience.Fix: Give requireToken and protectedResourceMetadataHandler the MCP URL exactly as hosts are given it (path included, same trailing slash).`,
    );

    const wrongIssuer = await check(page, "wrong-issuer");
    expect(problems(wrongIssuer.findings)[0]).toBe(
      `✗ Its authorization_servers names ["https://auth.elsewhere.example/"], not this server (${server.baseUrl}/): hosts will sign in elsewhere, or stop.Fix: authorization_servers must be ["${server.baseUrl}/"], exactly, trailing slash included (the resource API writes it so when BASE_URL is this server's address).`,
    );

    const noScopes = await check(page, "no-scopes");
    expect(problems(noScopes.findings)[0]).toBe(
      '✗ It lists no scopes (scopes_supported): Claude Code then asks for none, and other hosts for every scope this server knows.Fix: List the scopes your MCP server\'s tools need, e.g. scopes_supported: ["create"] (the scopes of your ResourceDescription).',
    );
  });
});

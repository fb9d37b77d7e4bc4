// The MCP hosts that register themselves (issue 32), each as it really does, through `netlify dev`,
// the real sign-in page in Chromium and the owner's password: it discovers the blog's MCP
// endpoint (401, RFC 9728, RFC 8414), registers at the registration_endpoint with its own body
// (test/helpers/dcr-hosts.ts: Cursor, MCP Inspector v0.x, Gemini CLI, Codex), sends its
// authorization request; the page says the app named itself and where it sends the answer; the
// code is read from the navigation Chromium starts to the redirect URI (a loopback port, an https
// address or an app link such as cursor://: Chromium resolves no public name and runs no app, so
// nothing leaves the machine); it is redeemed at /token, the blog's MCP server (the resource API in
// front of an MCP SDK server) is called with the MCP SDK's client, the token is refreshed as the
// host does and the rotated-out refresh token is refused.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBlogMcp, type BlogMcp } from "../helpers/blog-mcp.ts";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { REGISTERING_HOSTS, type Discovered, type RegisteringHost } from "../helpers/dcr-hosts.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { freePort, startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

const INTROSPECTION_TOKEN = randomBytes(32).toString("base64url");
const SCOPES = ["read"];
/** Chromium resolves no name but localhost: the hosts' redirect URIs are reached by nobody. */
const NO_DNS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost";

interface AsMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  scopes_supported: string[];
}
interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

let server: NetlifyDev;
let blog: BlogMcp;
let browser: Browser;
let as: AsMetadata;
let prm: { resource: string; scopes_supported: string[] };

beforeAll(async () => {
  [blog, browser] = await Promise.all([startBlogMcp(SCOPES), launchChromium([NO_DNS])]);
  server = await startNetlifyDev({ INTROSPECTION_TOKEN, ME: `${blog.origin}/` });
  blog.connect(server.baseUrl, INTROSPECTION_TOKEN);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.stop(), blog?.close()]);
});

/** What every host does first: the MCP URL without a token, its RFC 9728 document, the RFC 8414 metadata. */
async function discovered(): Promise<Discovered> {
  if (!as) {
    const refused = await fetch(blog.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(refused.status).toBe(401);
    prm = await (
      await fetch(/resource_metadata="([^"]+)"/.exec(refused.headers.get("www-authenticate") ?? "")![1]!)
    ).json();
    as = await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json();
  }
  return {
    resource: prm.resource,
    scopes: prm.scopes_supported,
    offlineAccess: as.scopes_supported.includes("offline_access"),
    port: await freePort(),
  };
}

/** POST /register with the host's own body, as its client does (JSON). */
async function registerAs(host: RegisteringHost, d: Discovered): Promise<string> {
  const response = await fetch(as.registration_endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(host.registration(d)),
  });
  const body = (await response.json()) as { client_id: string; client_name: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  expect(body.client_name).toBe(host.clientName);
  return body.client_id;
}

/** The host's authorization request in Chromium: the owner reads the page, types the password
 * and approves; the browser starts for the host's redirect URI. */
async function consent(
  host: RegisteringHost,
  d: Discovered,
  clientId: string,
): Promise<{ code: string; verifier: string; redirectUri: string }> {
  const { verifier, challenge } = pkcePair();
  const redirectUri = host.redirectUri(d);
  const state = randomBytes(16).toString("base64url");
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    ...host.authorize(d),
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  let landed: URL;
  try {
    await page.goto(`${as.authorization_endpoint}?${params}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    // The app named itself, the page says so; where the answer goes is on a line of its own; this
    // server's own host (the client_id's) is not shown as the app's website.
    await expect(page.locator("#client-heading").textContent()).resolves.toBe(`Sign in to "${host.clientName}"`);
    await expect(page.locator("#registered-claim").textContent()).resolves.toBe(
      `This app registered itself as "${host.clientName}"; this name is not verified.`,
    );
    await expect(page.locator("#registered-target").textContent()).resolves.toBe(host.target(d));
    expect(await page.locator("#client-domain").isVisible()).toBe(false);
    expect(await page.locator("#client-host").isVisible()).toBe(false);
    if (params.has("resource")) await expect(page.locator("#resource").textContent()).resolves.toBe(d.resource);
    const asked = (params.get("scope") ?? "").split(" ").filter(Boolean);
    const ticked = await page
      .locator('#scope-list input[name="scope"]:checked')
      .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(ticked.sort()).toEqual([...asked].sort());
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await readyToApprove(page);
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.isNavigationRequest() && r.url().startsWith(`${redirectUri}?`)),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    landed = new URL(request.url());
  } finally {
    await context.close();
  }
  expect(landed.searchParams.get("state")).toBe(state);
  expect(landed.searchParams.get("iss")).toBe(as.issuer);
  return { code: landed.searchParams.get("code")!, verifier, redirectUri };
}

async function token(fields: Record<string, string>): Promise<Response> {
  return fetch(as.token_endpoint, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams(fields),
  });
}

async function tokensOf(response: Response): Promise<Tokens> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as Tokens;
}

/** An MCP session with the real SDK client: initialize, tools/list, tools/call. */
async function callMcp(accessToken: string): Promise<string> {
  const client = new Client({ name: "mcp-host-emulation", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(blog.url), {
      requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["whoami"]);
    const answer = await client.callTool({ name: "whoami", arguments: {} });
    return (answer.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

describe("the metadata a registering host reads", () => {
  it("offers registration beside Client ID Metadata Documents, public clients and S256", async () => {
    await discovered();
    expect(as).toMatchObject({
      registration_endpoint: `${server.baseUrl}/register`,
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ["S256"],
    });
    expect(prm.scopes_supported).not.toContain("offline_access");
  });
});

describe("each host that registers itself, as it signs in", () => {
  for (const host of REGISTERING_HOSTS) {
    it(host.name, async () => {
      const d = await discovered();
      const clientId = await registerAs(host, d);
      const { code, verifier, redirectUri } = await consent(host, d, clientId);
      const withResource = host.authorize(d).resource !== undefined;
      const first = await tokensOf(
        await token({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: redirectUri,
          client_id: clientId,
          ...(withResource ? { resource: d.resource } : {}),
        }),
      );
      expect(first.scope.split(" ")).toEqual(expect.arrayContaining(d.scopes));
      if (!withResource) {
        // No resource: a token with no audience, which an MCP server that requires its own
        // audience (as the blog's does, and MCP asks) refuses. docs/mcp.md says so for Cursor.
        const refused = await fetch(blog.url, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${first.access_token}`,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: "{}",
        });
        expect(refused.status).toBe(401);
        expect(refused.headers.get("www-authenticate")).toContain("not issued for this resource");
        return;
      }
      expect(await callMcp(first.access_token)).toBe(`${server.env.ME} via ${clientId} (${first.scope})`);
      const refresh = {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: clientId,
        ...(host.refreshWithResource ? { resource: d.resource } : {}),
      };
      const second = await tokensOf(await token(refresh));
      expect(second.scope).toBe(first.scope);
      expect(await callMcp(second.access_token)).toContain(`via ${clientId}`);
      const reused = await token(refresh);
      expect(reused.status).toBe(400);
      expect(await reused.json()).toMatchObject({ error: "invalid_grant" });
    });
  }
});

// The MCP hosts people use, each signing in as it really does (issue 23), through `netlify dev`,
// the real sign-in page in Chromium and the owner's password. For each host in
// test/helpers/mcp-hosts.ts (sources there and in docs/research/mcp-hosts.md):
// - its published Client ID Metadata Document, byte for byte, is served over https under its own
//   address (https://claude.ai/oauth/mcp-oauth-client-metadata...: test-hosts.ts, test-network.mjs);
// - it discovers the blog's MCP endpoint (401, RFC 9728 document, RFC 8414 metadata), and sends
//   its exact authorization request; the code is read from the request Chromium starts to the
//   host's redirect URI (Chromium resolves no public name, so nothing leaves the machine);
// - it redeems the code at /token with `resource` (ChatGPT with a private_key_jwt assertion whose
//   key the test host publishes at the document's jwks_uri), calls the blog's MCP endpoint (the
//   resource API in front of a real MCP SDK server) with the real MCP SDK client, refreshes as it
//   does (no `scope`), calls again, and a rotated-out refresh token is refused.
// Cases that need a server feature from another branch name it in brackets (docs/mcp.md).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from "jose";
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBlogMcp, type BlogMcp } from "../helpers/blog-mcp.ts";
import { launchChromium, readyToApprove } from "../helpers/browser.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import {
  CHATGPT_JWKS_URI,
  CHATGPT_KID,
  DOCUMENTS,
  HOST_NAMES,
  HOSTS,
  type Discovered,
  type HostCase,
} from "../helpers/mcp-hosts.ts";
import { freePort, startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";
import { startTestHost, withEnv, type TestHost } from "../helpers/test-hosts.ts";

const INTROSPECTION_TOKEN = randomBytes(32).toString("base64url");
const SCOPES = ["read"];
/** Chromium resolves no name but localhost: the hosts' redirect URIs are reached by nobody
 * (the test reads the code from the request Chromium starts), and nothing leaves the machine. */
const NO_DNS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost";
const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

interface AsMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  scopes_supported: string[];
  token_endpoint_auth_methods_supported: string[];
  [member: string]: unknown;
}
interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  scope: string;
}

let server: NetlifyDev;
let host: TestHost;
let blog: BlogMcp;
let browser: Browser;
let as: AsMetadata;
let prm: { resource: string; authorization_servers: string[]; scopes_supported: string[] };
let chatgptKey: CryptoKey;

beforeAll(async () => {
  [host, blog, browser] = await Promise.all([
    startTestHost({ names: HOST_NAMES }),
    startBlogMcp(SCOPES),
    launchChromium([NO_DNS]),
  ]);
  for (const [url, body] of Object.entries(DOCUMENTS))
    host.serve(url, { body, headers: { "Cache-Control": "max-age=300" } });
  const pair = await generateKeyPair("RS256", { modulusLength: 2048 });
  chatgptKey = pair.privateKey;
  host.serve(CHATGPT_JWKS_URI, {
    body: JSON.stringify({
      keys: [{ ...(await exportJWK(pair.publicKey)), kid: CHATGPT_KID, alg: "RS256", use: "sig" }],
    }),
  });
  // The blog is the owner's site: its MCP endpoint's default scopes may be read from there.
  server = await withEnv(host.netlifyDevEnv, () => startNetlifyDev({ INTROSPECTION_TOKEN, ME: `${blog.origin}/` }));
  blog.connect(server.baseUrl, INTROSPECTION_TOKEN);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.stop(), host?.close(), blog?.close()]);
});

/** What every host does first: call the MCP URL without a token, follow the 401 to the
 * resource's RFC 9728 document, then to the authorization server's RFC 8414 metadata. */
async function discover(): Promise<void> {
  const refused = await fetch(blog.url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: "{}",
  });
  expect(refused.status).toBe(401);
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(refused.headers.get("www-authenticate") ?? "")?.[1];
  expect(metadataUrl).toBe(`${blog.origin}/.well-known/oauth-protected-resource/mcp`);
  prm = await (await fetch(metadataUrl!)).json();
  as = await (await fetch(`${prm.authorization_servers[0]}.well-known/oauth-authorization-server`)).json();
}

async function discovered(): Promise<Discovered> {
  if (!as) await discover();
  return {
    resource: prm.resource,
    scopes: prm.scopes_supported,
    offlineAccess: as.scopes_supported.includes("offline_access"),
    port: await freePort(),
  };
}

/** ChatGPT's client assertion (RFC 7523): iss = sub = client_id, aud = the token endpoint URL. */
function assertion(clientId: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: "RS256", kid: CHATGPT_KID, typ: "JWT" })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(as.token_endpoint)
    .setJti(randomBytes(16).toString("base64url"))
    .setIssuedAt()
    .setExpirationTime("300s")
    .sign(chatgptKey);
}

async function token(c: HostCase, fields: Record<string, string>): Promise<Response> {
  const body = new URLSearchParams(fields);
  if (c.auth === "private_key_jwt") {
    body.set("client_assertion_type", JWT_BEARER);
    body.set("client_assertion", await assertion(c.clientId));
  }
  return fetch(as.token_endpoint, { method: "POST", headers: { Accept: "application/json" }, body });
}

async function tokensOf(response: Response): Promise<Tokens> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const tokens = JSON.parse(text) as Tokens;
  expect(tokens).toMatchObject({
    token_type: "Bearer",
    access_token: expect.any(String),
    refresh_token: expect.any(String),
  });
  return tokens;
}

/** The host's authorization request in Chromium: the owner reads the page, types the password
 * and approves; the browser lands on the host's redirect URI. */
async function consent(c: HostCase, d: Discovered): Promise<{ code: string; verifier: string; redirectUri: string }> {
  const { verifier, challenge } = pkcePair();
  const redirectUri = c.redirectUri(d);
  const state = c.state?.() ?? randomBytes(16).toString("base64url");
  const params = new URLSearchParams({
    response_type: "code",
    client_id: c.clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    ...c.authorize(d),
  });
  const context = await browser.newContext();
  const landing = `${new URL(redirectUri).origin}${new URL(redirectUri).pathname}`;
  const page = await context.newPage();
  let landed: URL | undefined;
  try {
    // The request reaches the consent page (and not an error at the redirect URI).
    const start = await fetch(`${as.authorization_endpoint}?${params}`, { redirect: "manual" });
    expect(start.headers.get("location"), `GET /auth answered ${start.status}`).toContain("#request=");
    await page.goto(`${as.authorization_endpoint}?${params}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    // Who asks (the document's name, the client_id's host), for which resource, and what is ticked.
    await expect(page.locator("#client-domain").textContent()).resolves.toBe(new URL(c.clientId).host);
    if (c.clientName) await expect(page.locator("#client-name").textContent()).resolves.toBe(c.clientName);
    await expect(page.locator("#resource").textContent()).resolves.toBe(d.resource);
    const asked = (params.get("scope") ?? "").split(" ").filter(Boolean);
    const ticked = await page
      .locator('#scope-list input[name="scope"]:checked')
      .evaluateAll((boxes) => boxes.map((box) => (box as HTMLInputElement).value));
    expect(ticked.sort()).toEqual([...(c.ticked?.(d) ?? asked)].sort());
    await page.getByLabel("Password").fill(TEST_PASSWORD);
    await readyToApprove(page);
    const [request] = await Promise.all([
      page.waitForRequest((request) => new URL(request.url()).href.startsWith(`${landing}?`)),
      page.getByRole("button", { name: "Approve" }).click(),
    ]);
    landed = new URL(request.url());
  } finally {
    await context.close();
  }
  expect(landed?.searchParams.get("state")).toBe(state);
  expect(landed?.searchParams.get("iss")).toBe(as.issuer);
  return { code: landed.searchParams.get("code")!, verifier, redirectUri };
}

/** An MCP session with the real SDK client: initialize, tools/list, tools/call. */
async function callMcp(accessToken: string): Promise<string> {
  const client = new Client({ name: "mcp-host-emulation", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(blog.url), {
    requestInit: { headers: { Authorization: `Bearer ${accessToken}` } },
  });
  await client.connect(transport);
  try {
    expect(client.getServerVersion()?.name).toBe("jane-blog");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["whoami"]);
    const answer = await client.callTool({ name: "whoami", arguments: {} });
    return (answer.content as { type: string; text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

describe("the metadata the MCP hosts read", () => {
  it("sends every host from the blog's MCP endpoint to this server, with what each needs", async () => {
    await discover();
    expect(prm).toMatchObject({
      resource: blog.url,
      authorization_servers: [`${server.baseUrl}/`],
      scopes_supported: SCOPES,
    });
    // claude.ai, ChatGPT, VS Code and the SDK compare the issuer as an exact string.
    expect(as.issuer).toBe(prm.authorization_servers[0]);
    // claude.ai uses CIMD only with both; Claude Code, claude.ai and the SDK stop without S256.
    expect(as).toMatchObject({
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.token_endpoint_auth_methods_supported).toContain("none");
    // Hosts keep offline_access out of the resource's own scopes (SEP-2207).
    expect(prm.scopes_supported).not.toContain("offline_access");
  });

  it("lists offline_access, so that claude.ai, Claude Code and the SDK ask for it", async () => {
    if (!as) await discover();
    expect(as.scopes_supported).toContain("offline_access");
  });

  it("offers registration too (issue 32), and every host with a document still chooses its document by its own rule", async () => {
    if (!as) await discover();
    expect(as.registration_endpoint).toBe(`${server.baseUrl}/register`);
    for (const c of HOSTS) {
      expect(c.identity(as), c.name).toBe(c.document ? "document" : "pre-registered");
      // The rule is no constant: without the flag, a host with a document would register instead.
      if (c.document)
        expect(c.identity({ ...as, client_id_metadata_document_supported: false }), c.name).toBe("registration");
    }
  });

  it("lists private_key_jwt, so that ChatGPT authenticates with its published key", async () => {
    if (!as) await discover();
    expect(as.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(["none", "private_key_jwt"]));
  });
});

describe("each MCP host, as it signs in", () => {
  for (const c of HOSTS) {
    it(c.name, async () => {
      const d = await discovered();
      const { code, verifier, redirectUri } = await consent(c, d);
      const first = await tokensOf(
        await token(c, {
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: redirectUri,
          client_id: c.clientId,
          resource: d.resource,
        }),
      );
      expect(first.scope.split(" ")).toEqual(expect.arrayContaining(d.scopes));
      expect(await callMcp(first.access_token)).toBe(`${server.env.ME} via ${c.clientId} (${first.scope})`);

      // Refresh as the host does: no scope; resource again, or not (Claude Code #90497).
      const refresh = {
        grant_type: "refresh_token",
        refresh_token: first.refresh_token,
        client_id: c.clientId,
        ...(c.refreshWithResource ? { resource: d.resource } : {}),
      };
      const second = await tokensOf(await token(c, refresh));
      expect(second.access_token).not.toBe(first.access_token);
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(second.scope).toBe(first.scope);
      expect(await callMcp(second.access_token)).toContain(`via ${c.clientId}`);

      // The rotated-out refresh token is dead (claude.ai's docs expect invalid_grant).
      const reused = await token(c, refresh);
      expect(reused.status).toBe(400);
      expect(await reused.json()).toMatchObject({ error: "invalid_grant" });
      // Each host fetched its own document under its own address (not a same-origin shortcut).
      if (c.document) expect(host.urls).toContain(c.clientId);
      if (c.auth === "private_key_jwt") expect(host.urls).toContain(CHATGPT_JWKS_URI);
    });
  }
});

describe("the redirect URIs a host's document allows", () => {
  /** GET /auth as `c` sends it, with another redirect URI: where it goes. */
  async function start(c: HostCase, redirectUri: string): Promise<Response> {
    const d = await discovered();
    const params = new URLSearchParams({
      response_type: "code",
      client_id: c.clientId,
      redirect_uri: redirectUri,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      state: "s",
      ...c.authorize(d),
    });
    return fetch(`${as.authorization_endpoint}?${params}`, { redirect: "manual" });
  }
  const named = (prefix: string) => HOSTS.find((c) => c.name.startsWith(prefix))!;

  it("takes VS Code on another port when 33418 is busy (microsoft/vscode #278512), and Claude Code on any port", async () => {
    for (const [c, uri] of [
      [named("VS Code"), `http://127.0.0.1:${await freePort()}/`],
      [named("Claude Code: http://localhost"), "http://localhost:8080/callback"],
    ] as const) {
      const answer = await start(c, uri);
      expect(answer.headers.get("location"), uri).toContain("#request=");
    }
  });

  it("refuses a path the document does not list, on loopback too, without redirecting", async () => {
    for (const [c, uri] of [
      [named("Claude Code: http://localhost"), `http://localhost:${await freePort()}/other`],
      [named("VS Code"), "http://127.0.0.1:33418/other"],
      [named("claude.ai: the"), "https://claude.ai/api/mcp/other"],
    ] as const) {
      const answer = await start(c, uri);
      expect(answer.status, uri).toBe(400);
      expect(await answer.text(), uri).toContain("does not publish as one of its redirect addresses");
    }
  });
});

// MCP hosts signing in, through `netlify dev`, driven by the MCP TypeScript SDK's own client
// auth (`auth()` with an OAuthClientProvider) as hosts drive it: RFC 9728 discovery from a local
// MCP-style protected resource, RFC 8414 metadata, a Client ID Metadata Document served over
// real https from a test host (see helpers/test-hosts.ts for why that is sound), and a loopback
// native-app client on an ephemeral port. The sign-in page's own POST stands in for the owner.
import { auth, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { createHash, randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBlogMcp, type BlogMcp } from "../helpers/blog-mcp.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startMcpResource, type McpResource } from "../helpers/mcp-resource.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { decodePayload } from "../helpers/requests.ts";
import { startTestHost, withEnv, type TestHost } from "../helpers/test-hosts.ts";

const INTROSPECTION_TOKEN = randomBytes(32).toString("base64url");
const SCOPES = ["create", "update"];
const CIMD_PATH = "/oauth/client-metadata.json";

/** What an MCP host keeps between auth() calls, in memory. */
class HostProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";

  constructor(
    readonly redirectUrl: string,
    readonly setup: { clientMetadataUrl?: string; preRegistered?: OAuthClientInformationMixed },
  ) {
    this.info = setup.preRegistered;
  }

  get clientMetadataUrl(): string | undefined {
    return this.setup.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Test MCP host",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    return randomBytes(16).toString("base64url");
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.info;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.info = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }
}

let server: NetlifyDev;
let host: TestHost;
let mcp: McpResource;
let otherMcp: McpResource;

beforeAll(async () => {
  host = await startTestHost();
  server = await withEnv(host.netlifyDevEnv, () => startNetlifyDev({ INTROSPECTION_TOKEN }));
  const resourceOptions = {
    issuer: `${server.baseUrl}/`,
    introspectionEndpoint: `${server.baseUrl}/introspect`,
    introspectionToken: INTROSPECTION_TOKEN,
    scopes: SCOPES,
  };
  [mcp, otherMcp] = await Promise.all([startMcpResource(resourceOptions), startMcpResource(resourceOptions)]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), host?.close(), mcp?.close(), otherMcp?.close()]);
});

/** The host's client metadata document: valid, with `extra` added. */
function clientDocument(clientId: string, redirectUri: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: clientId,
    client_name: "Test MCP host",
    client_uri: host.origin,
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...extra,
  });
}

/** GET /auth, as the person's browser follows the host's link: the signed request it hands to
 * the sign-in page. */
async function handOver(authorizationUrl: URL): Promise<string> {
  const start = await fetch(authorizationUrl, { redirect: "manual" });
  const location = start.headers.get("location") ?? "";
  if (start.status !== 303) throw new Error(`GET /auth answered ${start.status}: ${location} ${await start.text()}`);
  return new URLSearchParams(location.split("#")[1]).get("request")!;
}

/** The owner approves on the sign-in page, ticking what was asked; the redirect back. */
async function approve(request: string, scopes: string[]): Promise<URL> {
  const body = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
  for (const scope of scopes) body.append("scope", scope);
  const approved = await fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Origin: server.baseUrl, "Sec-Fetch-Site": "same-origin" },
  });
  expect(approved.status).toBe(302);
  return new URL(approved.headers.get("location")!);
}

function callTool(resource: McpResource, token?: string): Promise<Response> {
  return fetch(resource.url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
}

/** auth() to the redirect, the owner's approval, auth() again with the code: the host's tokens. */
async function signIn(
  provider: HostProvider,
  resource: McpResource,
): Promise<{ request: Record<string, unknown>; callback: URL; tokens: OAuthTokens }> {
  expect(await auth(provider, { serverUrl: resource.url })).toBe("REDIRECT");
  const authorizationUrl = provider.authorizationUrl!;
  const request = await handOver(authorizationUrl);
  const callback = await approve(request, authorizationUrl.searchParams.get("scope")!.split(" "));
  expect(callback.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
  expect(callback.searchParams.get("iss")).toBe(`${server.baseUrl}/`);
  expect(await auth(provider, { serverUrl: resource.url, authorizationCode: callback.searchParams.get("code")! })).toBe(
    "AUTHORIZED",
  );
  return { request: decodePayload(request), callback, tokens: provider.tokens()! };
}

describe("an MCP host with a Client ID Metadata Document", () => {
  it("discovers the server from the resource's metadata, signs in for that resource, and its token works there only", async () => {
    const clientId = `${host.origin}${CIMD_PATH}`;
    const redirectUri = `${host.origin}/oauth/callback`;
    host.serve(CIMD_PATH, { body: clientDocument(clientId, redirectUri), headers: { "Cache-Control": "max-age=300" } });
    const provider = new HostProvider(redirectUri, { clientMetadataUrl: clientId });

    // Without a token, the resource points at its metadata.
    const refused = await callTool(mcp);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain(`resource_metadata="${mcp.metadataUrl}"`);

    const { request, callback, tokens } = await signIn(provider, mcp);
    // The host asked with its metadata document's URL, the resource's scopes and the resource.
    const asked = provider.authorizationUrl!.searchParams;
    expect(asked.get("client_id")).toBe(clientId);
    // The metadata offers registration too (issue 32): the SDK still chose its document, as it
    // reads client_id_metadata_document_supported first, and registered nothing.
    expect(provider.clientInformation()?.client_id).toBe(clientId);
    expect(asked.get("scope")).toBe(SCOPES.join(" "));
    expect(asked.get("resource")).toBe(mcp.url);
    expect(host.requests).toContain(CIMD_PATH);
    // What the sign-in page shows: the app's name from its document, and the resource.
    expect(request).toMatchObject({ clientId, client: { name: "Test MCP host" }, resource: mcp.url, scopes: SCOPES });
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(tokens).toMatchObject({ token_type: "Bearer", scope: SCOPES.join(" "), refresh_token: expect.any(String) });

    const called = await callTool(mcp, tokens.access_token);
    expect(called.status).toBe(200);
    expect(await called.json()).toMatchObject({ result: { me: "https://jane.example/", scope: SCOPES.join(" ") } });
    expect(mcp.introspections.at(-1)).toMatchObject({ active: true, client_id: clientId, aud: mcp.url });
    // Another resource refuses it: its aud is not theirs.
    expect((await callTool(otherMcp, tokens.access_token)).status).toBe(401);

    // The SDK refreshes with the same resource; the new token is still for it alone.
    expect(await auth(provider, { serverUrl: mcp.url })).toBe("AUTHORIZED");
    const refreshed = provider.tokens()!;
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect((await callTool(mcp, refreshed.access_token)).status).toBe(200);
    expect(mcp.introspections.at(-1)).toMatchObject({ active: true, aud: mcp.url });
  });

  it("refuses each document the draft refuses, and says why", async () => {
    // A desktop host: its document is public, its callback a listener on this device.
    const redirectUri = "http://127.0.0.1:49152/callback";
    const cases: {
      path: string;
      served: (clientId: string) => { status?: number; headers?: Record<string, string>; body: string };
      reason: string;
    }[] = [
      {
        path: "/refused/secret.json",
        served: (id) => ({ body: clientDocument(id, redirectUri, { client_secret: "s3cret" }) }),
        reason: "holds client_secret",
      },
      {
        path: "/refused/basic.json",
        served: (id) => ({
          body: clientDocument(id, redirectUri, { token_endpoint_auth_method: "client_secret_basic" }),
        }),
        reason: "needs a shared secret",
      },
      {
        path: "/refused/large.json",
        served: (id) => ({ body: clientDocument(id, redirectUri, { padding: "x".repeat(5 * 1024) }) }),
        reason: "larger than 5 KB",
      },
      {
        path: "/refused/status.json",
        served: (id) => ({ status: 203, body: clientDocument(id, redirectUri) }),
        reason: "status 203, not 200",
      },
      {
        path: "/refused/other-id.json",
        served: () => ({ body: clientDocument(`${host.origin}/someone-else.json`, redirectUri) }),
        reason: "is not exactly its own URL",
      },
      {
        path: "/refused/moved.json",
        served: () => ({ status: 302, headers: { Location: CIMD_PATH }, body: "" }),
        reason: "reached through a redirect",
      },
    ];
    host.serve(CIMD_PATH, { body: clientDocument(`${host.origin}${CIMD_PATH}`, redirectUri) });
    for (const { path, served, reason } of cases) {
      const clientId = `${host.origin}${path}`;
      host.serve(path, served(clientId));
      const url = new URL(`${server.baseUrl}/auth`);
      for (const [name, value] of Object.entries({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        state: "s",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
        scope: "create",
      })) {
        url.searchParams.set(name, value);
      }
      const response = await fetch(url, { redirect: "manual" });
      expect(response.status, path).toBe(400);
      const page = await response.text();
      expect(page, path).toContain("The app&#39;s metadata document was not used");
      expect(page, path).toContain(reason.replace(/'/g, "&#39;"));
    }
  });

  it("never fetches a document whose host name answers an internal address, in this very setup", async () => {
    const clientId = `${host.internalOrigin}${CIMD_PATH}`;
    const before = host.requests.length;
    const url = new URL(`${server.baseUrl}/auth`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:49152/callback",
      state: "s",
      code_challenge: "a".repeat(43),
      code_challenge_method: "S256",
      scope: "create",
    })) {
      url.searchParams.set(name, value);
    }
    const response = await fetch(url, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("does not publish as one of its redirect addresses");
    expect(host.requests.length).toBe(before);
  });
});

describe("a host whose document could not be read at sign-in", () => {
  it("has it read by the token function, and is held to the private_key_jwt it declares there", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const clientId = `${host.origin}/unread/client.json`;
    const redirectUri = `${host.origin}/unread/callback`;
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    // At sign-in the host's site fails (a 503): the sign-in goes on as for a bare client on its origin.
    host.serve("/unread/client.json", { status: 503, body: "" });
    const url = new URL(`${server.baseUrl}/auth`);
    for (const [name, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      state: "s",
      code_challenge: challenge,
      code_challenge_method: "S256",
      scope: "create",
    })) {
      url.searchParams.set(name, value);
    }
    const request = await handOver(url);
    expect(decodePayload(request)).toMatchObject({ documentUnread: true });
    const code = (await approve(request, ["create"])).searchParams.get("code")!;
    const redeem = (extra: Record<string, string> = {}) =>
      fetch(`${server.baseUrl}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          client_id: clientId,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          ...extra,
        }),
      });

    // Still failing at /token: refused, and the code is not used up.
    const unreadable = await redeem();
    expect(unreadable.status).toBe(401);
    expect(await unreadable.json()).toMatchObject({
      error: "invalid_client",
      error_description: expect.stringContaining("could not be read"),
    });

    // Readable now, and it declares private_key_jwt: the code needs the assertion.
    const jwk = { ...(await exportJWK(publicKey)), kid: "unread-1", alg: "ES256" };
    host.serve("/unread/client.json", {
      body: clientDocument(clientId, redirectUri, {
        token_endpoint_auth_method: "private_key_jwt",
        jwks: { keys: [jwk] },
      }),
    });
    const bare = await redeem();
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({
      error: "invalid_client",
      error_description: expect.stringContaining("private_key_jwt"),
    });
    const assertion = await new SignJWT({ jti: randomBytes(16).toString("hex") })
      .setProtectedHeader({ alg: "ES256", kid: "unread-1" })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(`${server.baseUrl}/token`)
      .setIssuedAt()
      .setExpirationTime("1m")
      .sign(privateKey);
    const signed = await redeem({
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    });
    expect(signed.status).toBe(200);
  });
});

describe("an MCP host as a native app on loopback", () => {
  let listener: Server;
  const codes: URL[] = [];

  beforeAll(async () => {
    // The app's own callback listener, on an ephemeral port.
    listener = createServer((req, res) => {
      codes.push(new URL(req.url ?? "/", "http://127.0.0.1"));
      res.end("You can close this window.");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it("signs in with a pre-registered loopback client_id, and its token is for the resource it named", async () => {
    const { port } = listener.address() as AddressInfo;
    const clientId = `http://127.0.0.1:${port}/`;
    const provider = new HostProvider(`http://127.0.0.1:${port}/callback`, { preRegistered: { client_id: clientId } });
    const { callback, tokens } = await signIn(provider, otherMcp);
    // The browser lands on the app's listener with the code.
    await (await fetch(callback)).text();
    expect(codes.at(-1)?.searchParams.get("code")).toBe(callback.searchParams.get("code"));

    expect((await callTool(otherMcp, tokens.access_token)).status).toBe(200);
    expect(otherMcp.introspections.at(-1)).toMatchObject({ active: true, client_id: clientId, aud: otherMcp.url });
    expect((await callTool(mcp, tokens.access_token)).status).toBe(401);
  });
});

describe("an MCP host without a metadata document: the SDK's dynamic registration (issue 32)", () => {
  let blog: BlogMcp;
  let listener: Server;
  const callbacks: URL[] = [];

  beforeAll(async () => {
    blog = await startBlogMcp(SCOPES);
    blog.connect(server.baseUrl, INTROSPECTION_TOKEN);
    listener = createServer((req, res) => {
      callbacks.push(new URL(req.url ?? "/", "http://127.0.0.1"));
      res.end("You can close this window.");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await blog?.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  it("registers at /register, signs in through the SDK's own transport, and calls the blog's MCP server", async () => {
    const { port } = listener.address() as AddressInfo;
    const redirectUri = `http://127.0.0.1:${port}/callback`;
    // Nothing pre-registered and no metadata URL: the SDK's path for Cursor-like hosts.
    const provider = new HostProvider(redirectUri, {});
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => (
      sent.push(`${init?.method ?? "GET"} ${String(input instanceof Request ? input.url : input)}`),
      fetch(input, init)
    );
    const transport = () =>
      new StreamableHTTPClientTransport(new URL(blog.url), { authProvider: provider, fetch: recording });

    const first = transport();
    await expect(new Client({ name: "dcr-host", version: "1.0.0" }).connect(first)).rejects.toThrow(UnauthorizedError);
    expect(sent).toContain(`POST ${server.baseUrl}/register`);
    const registered = provider.clientInformation()!;
    expect(registered.client_id.startsWith(`${server.baseUrl}/register/`)).toBe(true);
    expect(registered).toMatchObject({
      client_name: "Test MCP host",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
    });
    // Anyone can read what it registered, at its client_id.
    expect(await (await fetch(registered.client_id)).json()).toMatchObject({
      client_id: registered.client_id,
      client_name: "Test MCP host",
      redirect_uris: [redirectUri],
    });

    const asked = provider.authorizationUrl!.searchParams;
    expect(asked.get("client_id")).toBe(registered.client_id);
    expect(asked.get("resource")).toBe(blog.url);
    const request = await handOver(provider.authorizationUrl!);
    expect(decodePayload(request)).toMatchObject({
      clientId: registered.client_id,
      client: { name: "Test MCP host", registered: true },
      resource: blog.url,
    });
    const callback = await approve(request, asked.get("scope")!.split(" "));
    await (await fetch(callback)).text();
    expect(callbacks.at(-1)?.searchParams.get("code")).toBe(callback.searchParams.get("code"));
    await first.finishAuth(callback.searchParams.get("code")!);

    const client = new Client({ name: "dcr-host", version: "1.0.0" });
    await client.connect(transport());
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["whoami"]);
      const answer = await client.callTool({ name: "whoami", arguments: {} });
      expect((answer.content as { text: string }[])[0]!.text).toBe(
        `https://jane.example/ via ${registered.client_id} (${provider.tokens()!.scope})`,
      );
    } finally {
      await client.close();
    }
    // It refreshes as the SDK does, with the registered client_id and the resource.
    expect(await auth(provider, { serverUrl: blog.url })).toBe("AUTHORIZED");
    expect(blog.callers.length).toBeGreaterThan(0);
  });
});

describe("the metadata MCP hosts read", () => {
  it("advertises Client ID Metadata Documents and public clients, and registration for hosts without a document", async () => {
    const metadata = await (await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      client_id_metadata_document_supported: true,
      token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
      registration_endpoint: `${server.baseUrl}/register`,
    });
  });
});

// The resource-server API in a real blog: the package installed from its `npm pack` tarball
// into a copy of the fixture blog, the worked example of docs/resource-api.md (a Micropub function, an MCP
// endpoint and the protected-resource metadata) copied from that page into the blog's
// netlify/functions/, then `netlify serve`, which runs the same `netlify build --offline` as
// Netlify (the plugin adds the server; the blog's functions are bundled as for deployment) and
// serves the result. Tokens come from real sign-ins through the served pages' endpoints.
// Last, the other-site mode in this process, asking the running server's /introspect with
// INTROSPECTION_TOKEN, on an injected clock.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, ListResourcesResultSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceServer } from "../../netlify/lib/resource/index.ts";
import { blogEnv, installBlog, removeTempDirs, repo } from "../helpers/blog.ts";
import { TEST_SECRET, testPasswordHash } from "../helpers/env.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { fixedClock } from "../helpers/runtime.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";
import { CLIENT_ID, exampleFunctions, signInAt } from "../helpers/resource-blog.ts";

const CREDENTIAL = randomBytes(32).toString("base64url");

let blog: string;
let base: string;
let server: ChildProcess | undefined;
let log = "";

async function waitForServer(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server?.exitCode !== null) throw new Error(`netlify serve exited early:\n${log}`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(5000) })).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`netlify serve did not answer ${url} within ${timeoutMs} ms:\n${log}`);
}

beforeAll(async () => {
  blog = installBlog("blog");
  const functions = exampleFunctions();
  expect([...functions.keys()].sort()).toEqual(["mcp.mts", "micropub.mts", "protected-resource.mts"]);
  mkdirSync(join(blog, "netlify", "functions"), { recursive: true });
  for (const [name, code] of functions) writeFileSync(join(blog, "netlify", "functions", name), code);

  const [port, staticPort, functionsPort] = await Promise.all([freePort(), freePort(), freePort()]);
  base = `http://localhost:${port}`;
  writeFileSync(
    join(blog, ".env"),
    [
      `ME=${base}/`,
      `BASE_URL=${base}`,
      `SECRET=${TEST_SECRET}`,
      `PASSWORD_HASH='${await testPasswordHash()}'`,
      `INTROSPECTION_TOKEN=${CREDENTIAL}`,
      "",
    ].join("\n"),
  );
  const cli = join(blog, "node_modules", "netlify-cli", "bin", "run.js");
  server = spawn(
    process.execPath,
    [
      cli,
      "serve",
      "--context",
      "dev",
      "--offline",
      "--internal-disable-edge-functions",
      "--port",
      String(port),
      "--staticServerPort",
      String(staticPort),
      "--functions-port",
      String(functionsPort),
    ],
    { cwd: blog, env: blogEnv({ BROWSER: "none" }), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  await waitForServer(`${base}/.well-known/oauth-authorization-server`, 300_000);
}, 420_000);

afterAll(async () => {
  await stopProcessGroup(server);
  removeTempDirs();
});

const signIn = (scope: string, resource?: string) => signInAt(base, scope, resource);

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const micropub = (init: RequestInit = {}, query = "") => fetch(`${base}/micropub${query}`, init);
const mcp = (token: string, body: unknown) =>
  fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...bearer(token), "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

async function source(
  token: string,
  location: string,
): Promise<{ type: string[]; properties: Record<string, string[]>; client_id: string }> {
  const response = await micropub({ headers: bearer(token) }, `?q=source&url=${encodeURIComponent(location)}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { type: string[]; properties: Record<string, string[]>; client_id: string };
}

describe("the docs' Micropub and MCP functions in a blog, protected by netlify-indieauth/resource", () => {
  it("ships the blog's functions with the package's prebuilt entry, not its TypeScript", () => {
    const zip = readFileSync(join(blog, ".netlify", "functions", "micropub.zip")).toString("latin1");
    expect(zip).toContain("node_modules/netlify-indieauth/netlify/resource/index.mjs");
    expect(zip).not.toContain("node_modules/netlify-indieauth/netlify/lib/");
    expect(log).toContain("micropub.mts");
  });

  it("type-checks the docs' functions against the package's declarations", () => {
    symlinkSync(join(repo, "node_modules", "typescript"), join(blog, "node_modules", "typescript"), "dir");
    writeFileSync(
      join(blog, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          lib: ["ES2023", "DOM", "DOM.Iterable"],
          types: [],
          noEmit: true,
          skipLibCheck: true,
        },
        include: ["netlify/functions"],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(blog, "node_modules", "typescript", "bin", "tsc"), "-p", blog], {
      cwd: blog,
      encoding: "utf8",
    });
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("accepts a token from a real sign-in: q=config, and a create whose entry is stored", async () => {
    const { access_token } = await signIn("profile create");
    const config = await micropub({ headers: bearer(access_token) }, "?q=config");
    expect(config.status).toBe(200);
    expect(await config.json()).toEqual({ "syndicate-to": [] });

    const created = await micropub({
      method: "POST",
      headers: bearer(access_token),
      body: new URLSearchParams({ h: "entry", content: "Hello from Micropub", "category[]": "indieweb" }),
    });
    expect(created.status).toBe(201);
    const location = created.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^${base}/posts/`));
    const entry = await source(access_token, location);
    expect(entry).toMatchObject({
      type: ["h-entry"],
      properties: { content: ["Hello from Micropub"], category: ["indieweb"] },
      client_id: CLIENT_ID,
    });
    // As the doc says: stored, not yet a page of this static blog (its build has not run since).
    expect((await fetch(location)).status).toBe(404);

    const json = await micropub({
      method: "POST",
      headers: { ...bearer(access_token), "Content-Type": "application/json" },
      body: JSON.stringify({ type: ["h-entry"], properties: { content: ["As JSON"] } }),
    });
    expect(json.status).toBe(201);
    expect((await source(access_token, json.headers.get("location")!)).properties.content).toEqual(["As JSON"]);
  });

  it("accepts an access token sent as access_token in a form body", async () => {
    const { access_token } = await signIn("create");
    const created = await micropub({
      method: "POST",
      body: new URLSearchParams({ h: "entry", content: "Token in the body", access_token }),
    });
    expect(created.status).toBe(201);
    const entry = await source(access_token, created.headers.get("location")!);
    expect(entry.properties).toMatchObject({ content: ["Token in the body"] });
    expect(entry.properties).not.toHaveProperty("access_token");
  });

  it('answers 403 with scope="create" for a token without create', async () => {
    const { access_token } = await signIn("read");
    const refused = await micropub({
      method: "POST",
      headers: bearer(access_token),
      body: new URLSearchParams({ h: "entry", content: "Not allowed" }),
    });
    expect(refused.status).toBe(403);
    const challenge = refused.headers.get("www-authenticate")!;
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="create"');
    expect(challenge).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/micropub"`);
    expect(((await refused.json()) as { error: string }).error).toBe("insufficient_scope");
  });

  it("serves the MCP endpoint to a token signed in for it, and to no other", async () => {
    const unbound = await signIn("read");
    const notForIt = await mcp(unbound.access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(notForIt.status).toBe(401);
    expect(notForIt.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const { access_token } = await signIn("read", `${base}/mcp`);
    const tools = await mcp(access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(tools.status).toBe(200);
    expect(((await tools.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name)).toEqual(
      ["whoami", "read_post"],
    );
    const call = await mcp(access_token, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "whoami", arguments: {} },
    });
    expect(await call.json()).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: `${base}/ via ${CLIENT_ID} (scope: read)` }] },
    });
    // Issued for the MCP endpoint, it is refused at the Micropub endpoint.
    expect((await micropub({ headers: bearer(access_token) }, "?q=config")).status).toBe(401);
  });

  it("is a correct MCP server to the MCP SDK's own client: ping, a tool's failure as an isError result, an unknown method as -32601", async () => {
    const writer = await signIn("create");
    const created = await micropub({
      method: "POST",
      headers: bearer(writer.access_token),
      body: new URLSearchParams({ h: "entry", content: "Read by an agent" }),
    });
    expect(created.status).toBe(201);
    const slug = new URL(created.headers.get("location")!).pathname.split("/").at(-1)!;

    const { access_token } = await signIn("read", `${base}/mcp`);
    const client = new Client({ name: "resource-blog test host", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: bearer(access_token) } }),
    );
    try {
      expect(client.getServerVersion()).toEqual({ name: "jane-blog", version: "1.0.0" });
      // MCP basic/utilities/ping: the receiver MUST answer promptly with an empty result.
      await expect(client.ping()).resolves.toEqual({});
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["whoami", "read_post"]);

      const found = await client.callTool({ name: "read_post", arguments: { slug } });
      expect(found.isError).toBeUndefined();
      expect(JSON.parse((found.content as { text: string }[])[0]!.text)).toMatchObject({
        properties: { content: ["Read by an agent"] },
      });
      // A tool that runs and fails is a result the model reads, not a JSON-RPC error.
      const failed = await client.callTool({ name: "read_post", arguments: { slug: "no-such-post" } });
      expect(failed).toEqual({
        isError: true,
        content: [{ type: "text", text: 'There is no post "no-such-post" on this blog.' }],
      });

      const unknownTool = await client
        .callTool({ name: "delete_everything", arguments: {} })
        .catch((error: unknown) => error);
      expect(unknownTool).toBeInstanceOf(McpError);
      expect((unknownTool as McpError).code).toBe(ErrorCode.InvalidParams);
      const unknownMethod = await client
        .request({ method: "resources/list" }, ListResourcesResultSchema)
        .catch((error: unknown) => error);
      expect(unknownMethod).toBeInstanceOf(McpError);
      expect((unknownMethod as McpError).code).toBe(ErrorCode.MethodNotFound);
    } finally {
      await client.close();
    }
  });

  it("gives a token signed in for another resource nothing on the blog, and tells only INTROSPECTION_TOKEN its aud", async () => {
    const evil = "https://evil-mcp.example/mcp";
    const { access_token } = await signIn("profile create", evil);
    const refused = await micropub({
      method: "POST",
      headers: bearer(access_token),
      body: new URLSearchParams({ h: "entry", content: "Not for this resource" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain(
      'error_description="The access token was not issued for this resource."',
    );
    expect((await mcp(access_token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).status).toBe(401);
    // A Micropub endpoint that verifies through the legacy GET /token, or /introspect with the
    // token itself, is told it is not active; /userinfo refuses it.
    expect(await (await fetch(`${base}/token`, { headers: bearer(access_token) })).json()).toEqual({ active: false });
    expect(await (await fetch(`${base}/introspect`, { method: "POST", headers: bearer(access_token) })).json()).toEqual(
      { active: false },
    );
    expect((await fetch(`${base}/userinfo`, { headers: bearer(access_token) })).status).toBe(401);
    const introspected = await fetch(`${base}/introspect`, {
      method: "POST",
      headers: bearer(CREDENTIAL),
      body: new URLSearchParams({ token: access_token }),
    });
    expect(await introspected.json()).toMatchObject({ active: true, scope: "profile create", aud: evil });
  });

  it("refuses a token in the header and another in the body with 400 invalid_request", async () => {
    const [mine, other] = await Promise.all([signIn("create"), signIn("create")]);
    const both = await micropub({
      method: "POST",
      headers: bearer(mine.access_token),
      body: new URLSearchParams({ h: "entry", content: "Two tokens", access_token: other.access_token }),
    });
    expect(both.status).toBe(400);
    expect(both.headers.get("www-authenticate")).toContain('error="invalid_request"');
    expect(((await both.json()) as { error: string }).error).toBe("invalid_request");
  });

  it("refuses a revoked token at once", async () => {
    const { access_token } = await signIn("create");
    expect((await micropub({ headers: bearer(access_token) }, "?q=config")).status).toBe(200);
    expect(
      (await fetch(`${base}/revoke`, { method: "POST", body: new URLSearchParams({ token: access_token }) })).status,
    ).toBe(200);
    const refused = await micropub({ headers: bearer(access_token) }, "?q=config");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await mcp(access_token, { jsonrpc: "2.0", id: 1, method: "initialize" })).status).toBe(401);
  });

  it("leads a client without a token from the resource to its metadata, and from there to this server", async () => {
    const refused = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" }),
    });
    expect(refused.status).toBe(401);
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(refused.headers.get("www-authenticate") ?? "")?.[1];
    expect(metadataUrl).toBe(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(refused.headers.get("www-authenticate")).toContain('scope="read"');
    const metadata = await fetch(metadataUrl!);
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get("access-control-allow-origin")).toBe("*");
    const document = (await metadata.json()) as {
      resource: string;
      authorization_servers: string[];
      scopes_supported: string[];
    };
    expect(document).toEqual({
      resource: `${base}/mcp`,
      authorization_servers: [`${base}/`],
      scopes_supported: ["read"],
      bearer_methods_supported: ["header", "body"],
      resource_name: "Jane's blog, for AI assistants (MCP)",
    });
    const server = (await (
      await fetch(`${document.authorization_servers[0]}.well-known/oauth-authorization-server`)
    ).json()) as { issuer: string };
    expect(server.issuer).toBe(document.authorization_servers[0]);
  });
});

describe("another site asking the running server's /introspect with INTROSPECTION_TOKEN", () => {
  it("gives the same answer as the blog's own functions, and never outlives a revocation by more than a minute", async () => {
    const clock = fixedClock(Date.now());
    const api = resourceServer({
      env: { INDIEAUTH_SERVER: base, INTROSPECTION_TOKEN: CREDENTIAL },
      now: () => clock.now,
    });
    const { access_token } = await signIn("profile create");
    const answer = await api.requireToken(
      new Request("https://elsewhere.example/micropub", { headers: bearer(access_token) }),
      { scope: "create", resource: "/micropub" },
    );
    expect(answer).toMatchObject({ active: true, me: `${base}/`, clientId: CLIENT_ID, scope: "profile create" });

    expect(
      (await fetch(`${base}/revoke`, { method: "POST", body: new URLSearchParams({ token: access_token }) })).status,
    ).toBe(200);
    expect((await micropub({ headers: bearer(access_token) }, "?q=config")).status).toBe(401);
    clock.advance(59_999);
    // The answer asked before the revocation may be reused within its minute...
    expect(await api.verifyAccessToken(access_token)).toMatchObject({ active: true });
    // ...and not a moment longer.
    clock.advance(1);
    expect(await api.verifyAccessToken(access_token)).toEqual({ active: false, reason: "inactive" });
  });
});

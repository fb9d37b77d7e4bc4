// The owner's blog with an MCP endpoint, as docs/resource-api.md's worked example has it, on
// loopback: /mcp is a real MCP server (the MCP SDK's McpServer, stateless Streamable HTTP with
// JSON answers) at http://localhost:PORT (development accepts localhost with a port as ME), behind the resource API's requireToken (`netlify-indieauth/resource`, other-site
// mode: the IndieAuth server's /introspect with INTROSPECTION_TOKEN), and
// /.well-known/oauth-protected-resource/mcp is the API's RFC 9728 document. The blog starts first
// (its origin is the owner's ME); `connect` names the IndieAuth server once it runs.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resourceServer, type ResourceServer } from "../../netlify/lib/resource/index.ts";

export interface BlogMcp {
  /** http://localhost:PORT: the owner's site (ME). */
  origin: string;
  /** The MCP endpoint, the `resource` hosts sign in for. */
  url: string;
  /** Who each accepted MCP call came from: `me via client_id (scope)`. */
  callers: string[];
  connect(serverBaseUrl: string, introspectionToken: string): void;
  close(): Promise<void>;
}

async function requestOf(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(`${origin}${req.url ?? "/"}`, { method: req.method, headers, body });
}

/** One stateless MCP server per call, as the SDK's stateless example does. */
function mcpServer(caller: string): McpServer {
  const server = new McpServer({ name: "jane-blog", version: "1.0.0" });
  server.registerTool("whoami", { description: "Who is signed in, with which app" }, () => ({
    content: [{ type: "text", text: caller }],
  }));
  return server;
}

export async function startBlogMcp(scopes: string[]): Promise<BlogMcp> {
  const callers: string[] = [];
  let api: ResourceServer | undefined;
  let origin = "";
  const description = { resource: "/mcp", scopes, name: "Jane's blog, for AI assistants (MCP)" };

  async function answer(request: Request): Promise<Response> {
    if (!api) return new Response("not connected", { status: 503 });
    const path = new URL(request.url).pathname;
    if (path.startsWith("/.well-known/oauth-protected-resource"))
      return api.protectedResourceMetadataHandler([description])(request);
    if (path !== "/mcp")
      return new Response("<!doctype html><title>Jane</title><h1>Jane's blog</h1>", {
        headers: { "Content-Type": "text/html" },
      });
    const token = await api.requireToken(request, { scope: scopes, resource: "/mcp", requireAudience: true });
    if (token instanceof Response) return token;
    const caller = `${token.me} via ${token.clientId} (${token.scope})`;
    callers.push(caller);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await mcpServer(caller).connect(transport);
    return transport.handleRequest(request);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const response = await answer(await requestOf(req, origin));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  };
  // localhost is both loopback addresses: one server on each, same port.
  const servers: Server[] = [createServer(handler)];
  await new Promise<void>((resolve) => servers[0]!.listen(0, "127.0.0.1", resolve));
  const { port } = servers[0]!.address() as AddressInfo;
  const v6 = createServer(handler);
  await new Promise<void>((resolve) =>
    v6.once("error", () => resolve()).listen(port, "::1", () => (servers.push(v6), resolve())),
  );
  origin = `http://localhost:${port}`;
  return {
    origin,
    url: `${origin}/mcp`,
    callers,
    connect: (serverBaseUrl, introspectionToken) => {
      api = resourceServer({ env: { INDIEAUTH_SERVER: serverBaseUrl, INTROSPECTION_TOKEN: introspectionToken } });
    },
    close: async () => {
      await Promise.all(
        servers.map(
          (server) => (server.closeAllConnections(), new Promise<void>((resolve) => server.close(() => resolve()))),
        ),
      );
    },
  };
}

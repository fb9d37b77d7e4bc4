// A small MCP-style protected resource, as an MCP server beside the blog would be (docs/resource-api.md's
// "Sign in to AI agents (MCP)" shows the same): it publishes RFC 9728 metadata naming the
// IndieAuth server, answers a call without a token with 401 and the metadata's address, and
// accepts a token only when the IndieAuth server's introspection says it is active and its
// `aud` is this very resource.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface McpResource {
  /** The resource identifier, e.g. http://127.0.0.1:PORT/mcp */
  url: string;
  metadataUrl: string;
  metadata: Record<string, unknown>;
  /** What introspection answered for each call with a token. */
  introspections: Record<string, unknown>[];
  close(): Promise<void>;
}

interface Options {
  issuer: string;
  introspectionEndpoint: string;
  /** INTROSPECTION_TOKEN of the IndieAuth server. */
  introspectionToken: string;
  scopes: string[];
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", "Cache-Control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

export async function startMcpResource(options: Options): Promise<McpResource> {
  let resource = "";
  let metadataUrl = "";
  let metadata: Record<string, unknown> = {};
  const introspections: Record<string, unknown>[] = [];
  const challenge = (error?: string) => ({
    "WWW-Authenticate": `Bearer ${error ? `error="${error}", ` : ""}resource_metadata="${metadataUrl}", scope="${options.scopes.join(" ")}"`,
  });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
      if (req.method === "GET" && path === "/.well-known/oauth-protected-resource/mcp") return send(res, 200, metadata);
      if (path !== "/mcp") return send(res, 404, { error: "not found" });
      const call = JSON.parse((await bodyOf(req)) || "{}") as { id?: unknown };
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!token) return send(res, 401, { error: "unauthorized" }, challenge());
      const answer = await fetch(options.introspectionEndpoint, {
        method: "POST",
        headers: { Authorization: `Bearer ${options.introspectionToken}`, Accept: "application/json" },
        body: new URLSearchParams({ token }),
      });
      const introspection = (await answer.json()) as Record<string, unknown>;
      introspections.push(introspection);
      // A token for another resource (or for none) is not for this server (RFC 8707, RFC 9068 4).
      if (introspection.active !== true || introspection.aud !== resource)
        return send(res, 401, { error: "invalid_token" }, challenge("invalid_token"));
      return send(res, 200, {
        jsonrpc: "2.0",
        id: call.id ?? null,
        result: { me: introspection.me, scope: introspection.scope },
      });
    })().catch(() => send(res, 500, { error: "server_error" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  resource = `http://127.0.0.1:${port}/mcp`;
  metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  metadata = {
    resource,
    authorization_servers: [options.issuer],
    scopes_supported: options.scopes,
    bearer_methods_supported: ["header"],
  };
  return {
    url: resource,
    metadataUrl,
    metadata,
    introspections,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

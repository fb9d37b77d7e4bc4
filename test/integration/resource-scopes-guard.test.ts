// The default-scope lookup (clients/resource-scopes.ts) fetches through the address guard: a
// resource on this machine is read only in local development (ME is http only there), and a
// deployment (ME on https) never fetches a loopback address, whatever the resource says.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookUpResourceScopes } from "../../netlify/lib/clients/resource-scopes.ts";
import { defaultScopesFor } from "../../netlify/lib/protocol/resource-default-scopes.ts";

let server: Server;
let origin: string;
let fetched = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    fetched++;
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
        scopes_supported: ["read", "offline_access"],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the default scope of a resource on this machine", () => {
  it("is read in local development, offline_access left out", async () => {
    const site = { me: `${origin}/`, baseUrl: origin, setup: "standalone" as const };
    const scopes = await defaultScopesFor(`${origin}/mcp`, site, (resource, options) =>
      lookUpResourceScopes(resource, { ...options, now: () => 1 }),
    );
    expect(scopes).toEqual(["read"]);
    expect(fetched).toBe(1);
  });

  it("is never fetched by a deployment: the guard refuses the loopback address", async () => {
    const before = fetched;
    const answer = await lookUpResourceScopes(`${origin}/mcp?deployed`, { localDevelopment: false, now: () => 1 });
    // Said to the app that asked: that it could not be read, never the address it resolves to.
    expect(answer).toEqual({ missing: "its metadata could not be read (it could not be reached)" });
    expect(fetched).toBe(before);
  });

  it("is not local development when ME is on https, even for a loopback resource", async () => {
    const seen: (boolean | undefined)[] = [];
    const site = { me: "https://jane.example/", baseUrl: "https://jane.example", setup: "shared-origin" as const };
    await expect(
      defaultScopesFor(
        "https://jane.example/mcp",
        site,
        async (_resource, options) => (seen.push(options?.localDevelopment), { scopes: ["read"] }),
      ),
    ).resolves.toEqual(["read"]);
    expect(seen).toEqual([false]);
  });
});

// Client discovery against a real local HTTP server. The default policy refuses loopback
// (tested too), so these fetches pass a policy that allows 127.0.0.1 and nothing else.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AddressPolicy } from "../../netlify/lib/clients/address-guard.ts";
import { clearClientCache, discoverClient } from "../../netlify/lib/clients/discovery.ts";
import { FetchFailed, FetchRefused, fetchDocument, type Fetcher } from "../../netlify/lib/clients/safe-fetch.ts";
import { serveHostile } from "../helpers/hostile-responses.ts";

const onlyLocal: AddressPolicy = (ip) => ip === "127.0.0.1";

let server: Server;
let port: number;
let base: string;
const hits = new Map<string, number>();
let lastHeaders: IncomingMessage["headers"] = {};

function count(path: string): number {
  return hits.get(path) ?? 0;
}

function totalHits(): number {
  return [...hits.values()].reduce((a, b) => a + b, 0);
}

/** The client_id a test uses: a domain name (so discovery does fetch it) served by the local
 * server, which the injected fetcher reaches at 127.0.0.1. */
function clientUrl(path: string): URL {
  return new URL(`http://client.test:${port}${path}`);
}

const localFetcher: Fetcher = async (url) => {
  const local = new URL(url);
  local.hostname = "127.0.0.1";
  const doc = await fetchDocument(local, { policy: onlyLocal });
  // As a real fetch would report it: the final URL under the name that was asked for.
  const final = new URL(doc.url);
  if (final.hostname === "127.0.0.1") final.hostname = url.hostname;
  return { ...doc, url: final.href };
};

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", base);
  const path = url.pathname;
  hits.set(path, count(path) + 1);
  lastHeaders = req.headers;
  if (serveHostile(path, res)) return;

  if (path === "/client.json") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        client_id: `http://client.test:${port}/client.json`,
        client_name: "Local JSON App",
        client_uri: `http://client.test:${port}/`,
        logo_uri: "/logo.png",
        redirect_uris: ["https://elsewhere.example/callback"],
      }),
    );
    return;
  }
  if (path === "/app") {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", Link: `</from-header>; rel="redirect_uri"` });
    res.end(
      `<!doctype html><html><head><link rel="redirect_uri" href="/callback"></head>` +
        `<body><div class="h-app"><img class="u-logo" src="/logo.png" alt="logo"><a class="p-name u-url" href="/">Local H App</a></div></body></html>`,
    );
    return;
  }
  const hop = /^\/hops\/(\d+)$/.exec(path);
  if (hop) {
    const left = Number(hop[1]);
    if (left > 0) {
      res.writeHead(left % 2 === 0 ? 301 : 307, { Location: `/hops/${left - 1}` });
      res.end();
    } else {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("arrived");
    }
    return;
  }
  if (path === "/to-metadata") {
    res.writeHead(302, { Location: "http://169.254.169.254/latest/meta-data/" });
    res.end();
    return;
  }
  if (path === "/to-file") {
    res.writeHead(302, { Location: "file:///etc/passwd" });
    res.end();
    return;
  }
  if (path === "/error") {
    res.writeHead(500, { "Content-Type": "text/plain" });
    res.end("boom");
    return;
  }
  res.writeHead(404);
  res.end();
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  hits.clear();
  clearClientCache();
});

describe("fetchDocument against a local server", () => {
  it("fetches a JSON document and sends Accept and User-Agent", async () => {
    const doc = await fetchDocument(new URL(`${base}/client.json`), { policy: onlyLocal });
    expect(doc.status).toBe(200);
    expect(doc.contentType).toBe("application/json");
    expect(JSON.parse(doc.body)).toMatchObject({ client_name: "Local JSON App" });
    expect(lastHeaders.accept).toBe("application/json, text/html;q=0.9");
    expect(lastHeaders["user-agent"]).toContain("netlify-indieauth");
    expect(lastHeaders.cookie).toBeUndefined();
  });

  it("returns Link headers", async () => {
    const doc = await fetchDocument(new URL(`${base}/app`), { policy: onlyLocal });
    expect(doc.linkHeaders).toEqual([`</from-header>; rel="redirect_uri"`]);
  });

  it("refuses the same server with the default policy", async () => {
    await expect(fetchDocument(new URL(`${base}/client.json`))).rejects.toBeInstanceOf(FetchRefused);
    expect(totalHits()).toBe(0);
  });

  it("follows a redirect and reports the final URL", async () => {
    const doc = await fetchDocument(new URL(`${base}/hops/1`), { policy: onlyLocal });
    expect(doc.body).toBe("arrived");
    expect(doc.url).toBe(`${base}/hops/0`);
    const three = await fetchDocument(new URL(`${base}/hops/3`), { policy: onlyLocal });
    expect(three.body).toBe("arrived");
  });

  it("refuses a chain of 4 redirects", async () => {
    await expect(fetchDocument(new URL(`${base}/hops/4`), { policy: onlyLocal })).rejects.toBeInstanceOf(FetchRefused);
    expect(count("/hops/0")).toBe(0);
  });

  it("refuses a 600 KB body", async () => {
    await expect(fetchDocument(new URL(`${base}/big`), { policy: onlyLocal })).rejects.toBeInstanceOf(FetchRefused);
  });

  it("stops an endless body at maxBytes", async () => {
    await expect(fetchDocument(new URL(`${base}/endless`), { policy: onlyLocal, maxBytes: 64 * 1024 })).rejects.toBeInstanceOf(FetchRefused);
  });

  it("ends a slow endless drip at the timeout", async () => {
    await expect(fetchDocument(new URL(`${base}/drip`), { policy: onlyLocal, timeoutMs: 300 })).rejects.toBeInstanceOf(FetchFailed);
  });

  it("ends a server that never answers at the timeout", async () => {
    await expect(fetchDocument(new URL(`${base}/silent`), { policy: onlyLocal, timeoutMs: 300 })).rejects.toBeInstanceOf(FetchFailed);
  });

  it("refuses a redirect to the cloud metadata address, even though the first hop was allowed", async () => {
    await expect(fetchDocument(new URL(`${base}/to-metadata`), { policy: onlyLocal })).rejects.toBeInstanceOf(FetchRefused);
    expect(count("/to-metadata")).toBe(1);
  });

  it("refuses a redirect to a file: URL", async () => {
    await expect(fetchDocument(new URL(`${base}/to-file`), { policy: onlyLocal })).rejects.toBeInstanceOf(FetchRefused);
  });

  it("fails on a non-2xx status", async () => {
    await expect(fetchDocument(new URL(`${base}/error`), { policy: onlyLocal })).rejects.toBeInstanceOf(FetchFailed);
  });
});

describe("discoverClient", () => {
  it("reads a Client ID Metadata Document", async () => {
    const clientId = clientUrl("/client.json");
    const info = await discoverClient(clientId, { fetcher: localFetcher });
    expect(info).toEqual({
      clientId: clientId.href,
      name: "Local JSON App",
      uri: `http://client.test:${port}/`,
      logoUri: `http://client.test:${port}/logo.png`,
      redirectUris: ["https://elsewhere.example/callback"],
      fetched: true,
    });
  });

  it("reads an h-app page with rel=redirect_uri from the page and the Link header", async () => {
    const info = await discoverClient(clientUrl("/app"), { fetcher: localFetcher });
    expect(info.name).toBe("Local H App");
    expect(info.logoUri).toBe(`http://client.test:${port}/logo.png`);
    expect(info.redirectUris).toEqual([`http://client.test:${port}/from-header`, `http://client.test:${port}/callback`]);
    expect(info.fetched).toBe(true);
  });

  it("does not let a document on another origin, reached by a redirect, speak for the client", async () => {
    // The client's site redirects (an open redirect, say) to a document it does not control.
    const clientId = clientUrl("/redirects-away");
    const document = { client_id: clientId.href, client_name: "Not the app", redirect_uris: ["https://attacker.example/callback"] };
    const landed = (url: string): Fetcher => async () => ({ url, status: 200, contentType: "application/json", linkHeaders: [], body: JSON.stringify(document) });
    const info = await discoverClient(clientId, { fetcher: landed("https://attacker.example/client.json"), cacheMs: 0 });
    expect(info).toEqual({ clientId: clientId.href, redirectUris: [], fetched: false });
    // The same document, served from the client's own origin, is the client's word.
    const own = await discoverClient(clientId, { fetcher: landed(clientUrl("/client.json").href), cacheMs: 0 });
    expect(own.redirectUris).toEqual(["https://attacker.example/callback"]);
  });

  it("caches a result for cacheMs, then fetches again", async () => {
    let now = 1_000_000;
    const options = { fetcher: localFetcher, now: () => now, cacheMs: 60_000 };
    const clientId = clientUrl("/client.json");
    await discoverClient(clientId, options);
    expect(count("/client.json")).toBe(1);
    const again = await discoverClient(clientId, options);
    expect(again.name).toBe("Local JSON App");
    expect(count("/client.json")).toBe(1);
    now += 60_001;
    await discoverClient(clientId, options);
    expect(count("/client.json")).toBe(2);
  });

  it("returns bare info, unfetched, when the fetch fails or is refused, and does not cache it", async () => {
    for (const path of ["/error", "/to-metadata", "/big", "/hops/4"]) {
      const clientId = clientUrl(path);
      expect(await discoverClient(clientId, { fetcher: localFetcher })).toEqual({ clientId: clientId.href, redirectUris: [], fetched: false });
    }
    await discoverClient(clientUrl("/error"), { fetcher: localFetcher });
    expect(count("/error")).toBe(2);
  });

  it("returns bare info for a client whose host resolves to loopback, with the default fetcher", async () => {
    // "localhost" itself is never fetched; the default fetcher's guard is what stops this one.
    const clientId = new URL(`http://client.test:${port}/client.json`);
    const guarded: Fetcher = (url) => {
      const local = new URL(url);
      local.hostname = "localhost";
      return fetchDocument(local);
    };
    expect(await discoverClient(clientId, { fetcher: guarded })).toEqual({ clientId: clientId.href, redirectUris: [], fetched: false });
    expect(totalHits()).toBe(0);
  });

  it("never fetches a loopback client_id (spec 4.2)", async () => {
    for (const raw of [`http://127.0.0.1:${port}/client.json`, `http://localhost:${port}/client.json`, `http://[::1]:${port}/client.json`]) {
      const clientId = new URL(raw);
      const info = await discoverClient(clientId, { fetcher: localFetcher });
      expect(info).toEqual({ clientId: clientId.href, redirectUris: [], fetched: false });
    }
    // Also with the default fetcher.
    await discoverClient(new URL(`http://localhost:${port}/client.json`));
    expect(totalHits()).toBe(0);
  });
});

// Client discovery against a real local HTTP server. The default policy refuses loopback
// (tested too), so these fetches pass a policy that allows 127.0.0.1 and nothing else.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AddressPolicy } from "../../netlify/lib/clients/address-guard.ts";
import { clearClientCache, discoverClient } from "../../netlify/lib/clients/discovery.ts";
import { FetchFailed, FetchRefused, fetchDocument, type Fetcher } from "../../netlify/lib/clients/safe-fetch.ts";
import { authorize } from "../helpers/endpoints.ts";
import { serveHostile } from "../helpers/hostile-responses.ts";
import { authorizationParams } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";

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

/** The client_id a test uses: an https domain name (so discovery does fetch it) served by the
 * local server, which the injected fetcher reaches over plain http at 127.0.0.1. (The e2e test
 * mcp-sign-in.e2e.test.ts fetches over real https.) */
function clientUrl(path: string): URL {
  return new URL(`https://client.test:${port}${path}`);
}

const localFetcher: Fetcher = async (url) => {
  const local = new URL(url);
  local.protocol = "http:";
  local.hostname = "127.0.0.1";
  const doc = await fetchDocument(local, { policy: onlyLocal });
  // As a real fetch would report it: the final URL under the name that was asked for.
  const final = new URL(doc.url);
  if (final.hostname === "127.0.0.1") {
    final.protocol = url.protocol;
    final.hostname = url.hostname;
  }
  return { ...doc, url: final.href };
};

/** A valid metadata document for the client_id at `path`, with `extra` added. */
function metadataFor(path: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: clientUrl(path).href,
    client_name: "Local JSON App",
    redirect_uris: ["https://elsewhere.example/callback"],
    ...extra,
  });
}

/** JSON documents served by path: status, headers and body. */
const documents: Record<string, () => { status?: number; headers?: Record<string, string>; body: string }> = {
  "/cached.json": () => ({ headers: { "Cache-Control": "public, max-age=120" }, body: metadataFor("/cached.json") }),
  "/no-store.json": () => ({ headers: { "Cache-Control": "no-store" }, body: metadataFor("/no-store.json") }),
  "/secret.json": () => ({ body: metadataFor("/secret.json", { client_secret: "s3cret" }) }),
  "/symmetric.json": () => ({
    body: metadataFor("/symmetric.json", { token_endpoint_auth_method: "client_secret_basic" }),
  }),
  "/not-found.json": () => ({ status: 404, body: metadataFor("/not-found.json") }),
  "/accepted.json": () => ({ status: 202, body: metadataFor("/accepted.json") }),
  "/large.json": () => ({ body: metadataFor("/large.json", { padding: "x".repeat(6 * 1024) }) }),
  "/other-id.json": () => ({ body: metadataFor("/other-id.json", { client_id: clientUrl("/client.json").href }) }),
};

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? "/", base);
  const path = url.pathname;
  hits.set(path, count(path) + 1);
  lastHeaders = req.headers;
  if (serveHostile(path, res)) return;

  const served = documents[path]?.();
  if (served) {
    res.writeHead(served.status ?? 200, { "Content-Type": "application/json", ...served.headers });
    res.end(served.body);
    return;
  }
  if (path === "/moved.json") {
    res.writeHead(302, { Location: "/client.json" });
    res.end();
    return;
  }
  if (path === "/client.json") {
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(
      JSON.stringify({
        client_id: `https://client.test:${port}/client.json`,
        client_name: "Local JSON App",
        client_uri: `https://client.test:${port}/`,
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
    await expect(
      fetchDocument(new URL(`${base}/endless`), { policy: onlyLocal, maxBytes: 64 * 1024 }),
    ).rejects.toBeInstanceOf(FetchRefused);
  });

  it("ends a slow endless drip at the timeout", async () => {
    await expect(fetchDocument(new URL(`${base}/drip`), { policy: onlyLocal, timeoutMs: 300 })).rejects.toBeInstanceOf(
      FetchFailed,
    );
  });

  it("ends a server that never answers at the timeout", async () => {
    await expect(
      fetchDocument(new URL(`${base}/silent`), { policy: onlyLocal, timeoutMs: 300 }),
    ).rejects.toBeInstanceOf(FetchFailed);
  });

  it("refuses a redirect to the cloud metadata address, even though the first hop was allowed", async () => {
    await expect(fetchDocument(new URL(`${base}/to-metadata`), { policy: onlyLocal })).rejects.toBeInstanceOf(
      FetchRefused,
    );
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
      uri: `https://client.test:${port}/`,
      logoUri: `https://client.test:${port}/logo.png`,
      redirectUris: ["https://elsewhere.example/callback"],
      fetched: true,
      metadataDocument: true,
    });
  });

  it("reads an h-app page with rel=redirect_uri from the page and the Link header", async () => {
    const info = await discoverClient(clientUrl("/app"), { fetcher: localFetcher });
    expect(info.name).toBe("Local H App");
    expect(info.logoUri).toBe(`https://client.test:${port}/logo.png`);
    expect(info.redirectUris).toEqual([
      `https://client.test:${port}/from-header`,
      `https://client.test:${port}/callback`,
    ]);
    expect(info.fetched).toBe(true);
  });

  it("does not let a document on another origin, reached by a redirect, speak for the client", async () => {
    // The client's site redirects (an open redirect, say) to a document it does not control.
    const clientId = clientUrl("/redirects-away");
    const document = {
      client_id: clientId.href,
      client_name: "Not the app",
      redirect_uris: ["https://attacker.example/callback"],
    };
    const landed =
      (url: string): Fetcher =>
      async () => ({
        url,
        status: 200,
        contentType: "application/json",
        linkHeaders: [],
        body: JSON.stringify(document),
      });
    const info = await discoverClient(clientId, {
      fetcher: landed("https://attacker.example/client.json"),
      cacheMs: 0,
    });
    expect(info).toEqual({
      clientId: clientId.href,
      redirectUris: [],
      fetched: false,
      refused: "its address redirects to another site",
    });
    // The same document served at the client_id itself, unredirected, is the client's word.
    const own = await discoverClient(clientId, { fetcher: landed(clientId.href), cacheMs: 0 });
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

  it("returns bare info, unfetched, when the fetch fails or is refused (marked unread when it failed), and does not cache it", async () => {
    for (const path of ["/big", "/hops/4", "/nothing-here"]) {
      const clientId = clientUrl(path);
      expect(await discoverClient(clientId, { fetcher: localFetcher })).toEqual({
        clientId: clientId.href,
        redirectUris: [],
        fetched: false,
      });
    }
    // A 500 says nothing of what the document declares: unread (protocol/unread-document.ts); nor
    // does an address the guard refuses (which the signed request must not tell from a failure).
    for (const path of ["/error", "/to-metadata"]) {
      expect(await discoverClient(clientUrl(path), { fetcher: localFetcher })).toEqual({
        clientId: clientUrl(path).href,
        redirectUris: [],
        fetched: false,
        unread: true,
      });
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
    expect(await discoverClient(clientId, { fetcher: guarded })).toEqual({
      clientId: clientId.href,
      redirectUris: [],
      fetched: false,
    });
    expect(totalHits()).toBe(0);
  });

  it("never fetches a loopback client_id (spec 4.2)", async () => {
    for (const raw of [
      `http://127.0.0.1:${port}/client.json`,
      `http://localhost:${port}/client.json`,
      `http://[::1]:${port}/client.json`,
    ]) {
      const clientId = new URL(raw);
      const info = await discoverClient(clientId, { fetcher: localFetcher });
      expect(info).toEqual({ clientId: clientId.href, redirectUris: [], fetched: false });
    }
    // Also with the default fetcher.
    await discoverClient(new URL(`http://localhost:${port}/client.json`));
    expect(totalHits()).toBe(0);
  });
});

describe("discoverClient: Client ID Metadata Documents to the draft", () => {
  const refusedWith = (clientId: URL, reason: string | RegExp) => ({
    clientId: clientId.href,
    redirectUris: [],
    fetched: false,
    refused: expect.stringMatching(reason),
  });

  it("keeps a document as long as its Cache-Control says", async () => {
    let now = 1_000_000;
    const clientId = clientUrl("/cached.json");
    await discoverClient(clientId, { fetcher: localFetcher, now: () => now });
    now += 119_000;
    expect((await discoverClient(clientId, { fetcher: localFetcher, now: () => now })).name).toBe("Local JSON App");
    expect(count("/cached.json")).toBe(1);
    now += 2_000;
    await discoverClient(clientId, { fetcher: localFetcher, now: () => now });
    expect(count("/cached.json")).toBe(2);
  });

  it("does not keep a no-store document", async () => {
    const clientId = clientUrl("/no-store.json");
    expect((await discoverClient(clientId, { fetcher: localFetcher })).name).toBe("Local JSON App");
    await discoverClient(clientId, { fetcher: localFetcher });
    expect(count("/no-store.json")).toBe(2);
  });

  it("refuses, and does not keep, a document with a secret or a symmetric auth method", async () => {
    const secret = clientUrl("/secret.json");
    expect(await discoverClient(secret, { fetcher: localFetcher })).toEqual(refusedWith(secret, /client_secret/));
    await discoverClient(secret, { fetcher: localFetcher });
    expect(count("/secret.json")).toBe(2);
    const symmetric = clientUrl("/symmetric.json");
    expect(await discoverClient(symmetric, { fetcher: localFetcher })).toEqual({
      ...refusedWith(symmetric, /client_secret_basic needs a shared secret/),
      authenticationRefused: true,
    });
  });

  it("does not count a document reached through a redirect on the client's own origin", async () => {
    const clientId = clientUrl("/moved.json");
    expect(await discoverClient(clientId, { fetcher: localFetcher })).toEqual(refusedWith(clientId, /redirect/));
    expect(count("/client.json")).toBe(1);
    await discoverClient(clientId, { fetcher: localFetcher });
    expect(count("/moved.json")).toBe(2);
  });

  it("counts a document only from a 200: a 404 is a failed fetch and a 202 is refused, neither kept", async () => {
    const missing = clientUrl("/not-found.json");
    expect(await discoverClient(missing, { fetcher: localFetcher })).toEqual({
      clientId: missing.href,
      redirectUris: [],
      fetched: false,
    });
    await discoverClient(missing, { fetcher: localFetcher });
    expect(count("/not-found.json")).toBe(2);
    const accepted = clientUrl("/accepted.json");
    expect(await discoverClient(accepted, { fetcher: localFetcher })).toEqual(
      refusedWith(accepted, "the document was served with status 202, not 200"),
    );
  });

  it("refuses a document over 5 KB and one that names another client_id", async () => {
    const large = clientUrl("/large.json");
    expect(await discoverClient(large, { fetcher: localFetcher })).toEqual(
      refusedWith(large, "the document is larger than 5 KB"),
    );
    const other = clientUrl("/other-id.json");
    expect(await discoverClient(other, { fetcher: localFetcher })).toEqual({
      ...refusedWith(other, /is not exactly its own URL/),
      identityRefused: true,
    });
  });

  // CIMD draft 4, 5.1: such a document may be a copy of another app's. Before, the sign-in went on
  // as an IndieAuth app that publishes nothing, to a redirect URI on the client_id's own origin.
  it("stops a sign-in whose document names another client_id, or none, with a page that says why", async () => {
    const rt = await testRuntime({
      discover: (clientId) => discoverClient(clientId, { fetcher: localFetcher, cacheMs: 0 }),
    });
    documents["/no-id.json"] = () => ({
      body: JSON.stringify({ client_name: "No id", redirect_uris: [clientUrl("/callback").href] }),
    });
    for (const [path, reason] of [
      ["/other-id.json", `the document&#39;s client_id (${clientUrl("/client.json").href}) is not exactly its own URL`],
      ["/no-id.json", "the document has no client_id"],
    ] as const) {
      const response = await authorize(
        rt,
        authorizationParams({ client_id: clientUrl(path).href, redirect_uri: clientUrl("/callback").href }),
      );
      expect(response.status, path).toBe(400);
      expect(response.headers.get("location"), path).toBeNull();
      const page = await response.text();
      expect(page, path).toContain("The app&#39;s metadata document names another app");
      expect(page, path).toContain(reason);
    }
  });
});

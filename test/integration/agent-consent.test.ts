// Consent for agents (issue 23, item 5), in-process against the real local Blobs server and a
// local client website: the loopback-only warning signed into the request, a metadata document
// read up to 5 KB and no further, and the app's logo fetched by the server (guarded, capped,
// type-checked), kept in Blobs and served from this origin at GET /auth/logo.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AddressPolicy } from "../../netlify/lib/clients/address-guard.ts";
import { parseClientDocument } from "../../netlify/lib/clients/client-info.ts";
import { fetchLogoBytes } from "../../netlify/lib/clients/client-logo.ts";
import { clearClientCache, discoverClient, fetchClientDocument } from "../../netlify/lib/clients/discovery.ts";
import { storedFetchFailures } from "../../netlify/lib/clients/fetch-failures.ts";
import { logoSlot } from "../../netlify/lib/clients/logo-cache.ts";
import { LOGO_NOT_SHOWN } from "../../netlify/lib/endpoints/client-logo.ts";
import type { Fetcher } from "../../netlify/lib/clients/safe-fetch.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { authorize, endpoints, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, BASE, decodePayload } from "../helpers/requests.ts";
import { testRuntime, type FullRuntime, type TestRuntime } from "../helpers/runtime.ts";

const onlyLocal: AddressPolicy = (ip) => ip === "127.0.0.1";

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
  "base64",
);

interface Answer {
  type: string;
  body: Buffer | string;
  /** Keep writing this body until the reader hangs up. */
  endless?: boolean;
  noLength?: boolean;
}

let server: Server;
let port: number;
const answers = new Map<string, Answer>();
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const answer = answers.get(path);
    if (!answer) return void res.writeHead(404).end();
    if (answer.endless) {
      res.writeHead(200, { "Content-Type": answer.type });
      const more = (): void => {
        while (!res.destroyed && res.write(answer.body));
        if (!res.destroyed) res.once("drain", more);
      };
      return more();
    }
    const body = Buffer.from(answer.body);
    res.writeHead(200, {
      "Content-Type": answer.type,
      ...(answer.noLength ? {} : { "Content-Length": String(body.length) }),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  answers.clear();
  hits.clear();
  clearClientCache();
});

/** https://client.test:<port><path>, reached at 127.0.0.1 over http, under the production fetch rules. */
const clientUrl = (path: string) => `https://client.test:${port}${path}`;
const toLocal = (url: URL): URL => Object.assign(new URL(url), { protocol: "http:", hostname: "127.0.0.1" });
const localDocuments: Fetcher = async (url) => {
  const doc = await fetchClientDocument(toLocal(url), onlyLocal);
  return { ...doc, url: url.href };
};
const localLogos: FullRuntime["fetchLogo"] = (url) => fetchLogoBytes(toLocal(url), onlyLocal);

function metadata(path: string, extra: Record<string, unknown>): string {
  return JSON.stringify({ client_id: clientUrl(path), client_name: "Agent", ...extra });
}

async function runtime(): Promise<TestRuntime> {
  const rt = await testRuntime({ discover: (clientId) => discoverClient(clientId, { fetcher: localDocuments }) });
  return Object.assign(rt, { fetchLogo: localLogos });
}

/** The signed request GET /auth makes for a client whose document is at `path`. */
async function requestFor(rt: FullRuntime, path: string, redirectUri: string): Promise<Record<string, unknown>> {
  const params = authorizationParams({ client_id: clientUrl(path), redirect_uri: redirectUri });
  return decodePayload(await signedRequest(rt, params));
}

const getLogo = (rt: FullRuntime, path: string) => endpoints.authorize(new Request(`${BASE}${path}`), rt);

describe("the loopback-only warning", () => {
  it("is signed into the request of a metadata document whose redirect URIs are all loopback", async () => {
    // Claude Code's document: port-less loopback redirect URIs (docs/research/mcp-hosts.md).
    answers.set("/cli.json", {
      type: "application/json",
      body: metadata("/cli.json", {
        redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback", "http://[::1]/callback"],
      }),
    });
    const rt = await runtime();
    const request = await requestFor(rt, "/cli.json", "http://127.0.0.1:54321/callback");
    expect(request.client).toMatchObject({ name: "Agent", loopbackOnly: true });
  });

  it("is not held back by another client_id's failure on its origin: Claude Code signs in after a 404 there", async () => {
    answers.set("/cli.json", {
      type: "application/json",
      body: metadata("/cli.json", { redirect_uris: ["http://localhost/callback", "http://127.0.0.1/callback"] }),
    });
    // Discovery as the auth function runs it: what failed is remembered in the store.
    const rt = await testRuntime({
      discover: (clientId, store) =>
        discoverClient(clientId, { fetcher: localDocuments, failures: storedFetchFailures(store) }),
    });
    const anonymous = await authorize(
      rt,
      authorizationParams({ client_id: clientUrl("/does-not-exist"), redirect_uri: clientUrl("/cb") }),
    );
    expect(anonymous.status).toBe(303);
    expect(hits.get("/does-not-exist")).toBe(1);
    const request = await requestFor(rt, "/cli.json", "http://127.0.0.1:54321/callback");
    expect(request.client).toMatchObject({ name: "Agent", loopbackOnly: true });
  });

  it("is not there for a document that also lists a web redirect URI, or for an HTML client page", async () => {
    answers.set("/both.json", {
      type: "application/json",
      body: metadata("/both.json", {
        redirect_uris: ["http://127.0.0.1:33418/", `https://client.test:${port}/redirect`],
      }),
    });
    answers.set("/page", {
      type: "text/html",
      body: '<link rel="redirect_uri" href="http://127.0.0.1/callback"><div class="h-app"><span class="p-name">Page app</span></div>',
    });
    const rt = await runtime();
    expect((await requestFor(rt, "/both.json", "http://127.0.0.1:40000/")).client).not.toHaveProperty("loopbackOnly");
    expect((await requestFor(rt, "/page", "http://127.0.0.1:40000/callback")).client).toEqual({ name: "Page app" });
  });
});

describe("a metadata document read up to 5 KB and no further", () => {
  it("stops reading an endless JSON document past 5 KB and refuses it, saying why", async () => {
    answers.set("/endless.json", { type: "application/json", body: " ".repeat(1024), endless: true });
    const doc = await localDocuments(new URL(clientUrl("/endless.json")));
    expect(doc.oversized).toBe(true);
    expect(Buffer.byteLength(doc.body)).toBeLessThanOrEqual(5 * 1024 + 1);
    const info = await discoverClient(new URL(clientUrl("/endless.json")), { fetcher: localDocuments });
    expect(info).toMatchObject({ fetched: false, refused: "the document is larger than 5 KB" });
  });

  it("refuses a 6 KB document by its Content-Length, without reading it, and keeps 5 KB ones", async () => {
    const padding = (size: number, path: string) =>
      metadata(path, { redirect_uris: [`https://client.test:${port}/cb`], x: "" }).replace(
        '"x":""',
        `"x":"${"a".repeat(size)}"`,
      );
    answers.set("/big.json", { type: "application/json", body: padding(6 * 1024, "/big.json") });
    const small = padding(0, "/small.json");
    answers.set("/small.json", {
      type: "application/json",
      body: padding(5 * 1024 - Buffer.byteLength(small), "/small.json"),
    });
    expect(Buffer.byteLength(answers.get("/small.json")!.body)).toBe(5 * 1024);
    expect(await discoverClient(new URL(clientUrl("/big.json")), { fetcher: localDocuments })).toMatchObject({
      refused: "the document is larger than 5 KB",
    });
    expect(await discoverClient(new URL(clientUrl("/small.json")), { fetcher: localDocuments })).toMatchObject({
      fetched: true,
      redirectUris: [`https://client.test:${port}/cb`],
    });
  });

  it("keeps reading an HTML client page past 5 KB (IndieAuth's older rules and the fetch's own limit)", async () => {
    answers.set("/long", {
      type: "text/html",
      body: `<p>${"words ".repeat(20_000)}</p><link rel="redirect_uri" href="/callback">`,
      noLength: true,
    });
    const doc = await localDocuments(new URL(clientUrl("/long")));
    expect(doc.oversized).toBeUndefined();
    expect((await parseClientDocument(doc, clientUrl("/long"))).redirectUris).toEqual([clientUrl("/callback")]);
  });
});

describe("the app's logo, served from this origin", () => {
  async function logoPathFor(rt: FullRuntime, logo: string): Promise<{ path: string; own: string }> {
    answers.set("/app.json", {
      type: "application/json",
      body: metadata("/app.json", { redirect_uris: [`https://client.test:${port}/cb`], logo_uri: logo }),
    });
    clearClientCache();
    const request = await requestFor(rt, "/app.json", `https://client.test:${port}/cb`);
    return { path: (request.client as { logoUri: string }).logoUri, own: request.unshownLogoUri as string };
  }

  it("is this server's path in the signed request, fetched once, kept in Blobs and served as the image it is", async () => {
    answers.set("/logo.png", { type: "image/png", body: PNG });
    const rt = await runtime();
    const { path, own } = await logoPathFor(rt, "/logo.png");
    expect(path).toMatch(/^\/auth\/logo\?src=[^&]+&sig=[\w-]+$/);
    // The app's own URL is kept for the owner's console, never given to the page to load.
    expect(own).toBe(clientUrl("/logo.png"));
    expect(hits.get("/logo.png")).toBeUndefined();

    const served = await getLogo(rt, path);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(served.headers.get("cache-control")).toMatch(/max-age=\d+/);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);

    const again = await getLogo(rt, path);
    expect(Buffer.from(await again.arrayBuffer()).equals(PNG)).toBe(true);
    expect(hits.get("/logo.png")).toBe(1);
    const record = await rt.store.get<{ url: string; expiresAt: number }>(RECORDS.clientLogo.key(logoSlot(own)));
    expect(record).toMatchObject({ url: own, expiresAt: rt.now() + 24 * 60 * 60 * 1000 });

    // A day later it is fetched again.
    rt.clock.advance(24 * 60 * 60 * 1000);
    expect((await getLogo(rt, path)).status).toBe(200);
    expect(hits.get("/logo.png")).toBe(2);
  });

  it("is taken from an HTML client page's h-app too, and served the same way", async () => {
    answers.set("/gif", {
      type: "image/gif",
      body: Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"),
    });
    answers.set("/app/", {
      type: "text/html",
      body: '<div class="h-x-app"><img class="u-logo" src="/gif" alt=""><a class="p-name u-url" href="/app/">Page app</a></div>',
    });
    const rt = await runtime();
    const request = await requestFor(rt, "/app/", clientUrl("/app/callback"));
    const path = (request.client as { logoUri: string }).logoUri;
    expect(path).toMatch(/^\/auth\/logo\?/);
    const served = await getLogo(rt, path);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/gif");
  });

  it.each([
    [
      "larger than 64 KB",
      { type: "image/png", body: Buffer.concat([PNG, Buffer.alloc(70 * 1024)]) },
      /larger than 64 KB/,
    ],
    [
      "larger than 64 KB, with no Content-Length",
      { type: "image/png", body: Buffer.concat([PNG, Buffer.alloc(70 * 1024)]), noLength: true },
      /larger than 64 KB/,
    ],
    [
      "an SVG",
      { type: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>' },
      /image\/svg\+xml is not PNG, JPEG, GIF or WebP/,
    ],
    [
      "HTML served as a PNG",
      { type: "image/png", body: "<!doctype html><script>alert(1)</script>" },
      /bytes are not the image\/png/,
    ],
  ] satisfies [string, Answer, RegExp][])(
    "is refused when it is %s, and the refusal is kept (its reason in the store only)",
    async (_name, answer, reason) => {
      answers.set("/logo.png", answer);
      const rt = await runtime();
      const { path, own } = await logoPathFor(rt, "/logo.png");
      const refused = await getLogo(rt, path);
      expect(refused.status).toBe(404);
      expect(refused.headers.get("content-type")).not.toMatch(/^image\//);
      expect(((await refused.json()) as { error_description: string }).error_description).toBe(LOGO_NOT_SHOWN);
      expect((await rt.store.get<{ reason: string }>(RECORDS.clientLogo.key(logoSlot(own))))?.reason).toMatch(reason);
      expect((await getLogo(rt, path)).status).toBe(404);
      expect(hits.get("/logo.png")).toBe(1);
    },
  );

  it("is never fetched from an internal name, and the answer says nothing of what it resolves to", async () => {
    answers.set("/logo.png", { type: "image/png", body: PNG });
    const rt = await runtime();
    // The production fetcher, public addresses only, given a logo on this machine.
    Object.assign(rt, { fetchLogo: (url: URL) => fetchLogoBytes(url) });
    for (const host of ["localhost", "127.0.0.1"]) {
      const { path } = await logoPathFor(rt, `http://${host}:${port}/logo.png`);
      const refused = await getLogo(rt, path);
      expect(refused.status).toBe(404);
      const text = await refused.text();
      expect(JSON.parse(text)).toMatchObject({ error: "not_found", error_description: LOGO_NOT_SHOWN });
      expect(text).not.toMatch(/127\.0\.0\.1|resolves|allowed|localhost/);
    }
    expect(hits.get("/logo.png")).toBeUndefined();
  });

  it("answers a refused connection with the same sentence: no address, no errno", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const rt = await runtime();
    const { path } = await logoPathFor(rt, `https://client.test:${closedPort}/logo.png`);
    const refused = await getLogo(rt, path);
    expect(refused.status).toBe(404);
    const text = await refused.text();
    expect(JSON.parse(text)).toMatchObject({ error_description: LOGO_NOT_SHOWN });
    expect(text).not.toMatch(/ECONNREFUSED|ENOTFOUND|getaddrinfo|127\.0\.0\.1|connect/);
  });

  it("fetches nothing for a path this server did not sign", async () => {
    answers.set("/logo.png", { type: "image/png", body: PNG });
    const rt = await runtime();
    const { path } = await logoPathFor(rt, "/logo.png");
    const other = new URL(path, BASE);
    other.searchParams.set("src", clientUrl("/other.png"));
    expect((await getLogo(rt, `${other.pathname}${other.search}`)).status).toBe(404);
    expect((await getLogo(rt, "/auth/logo")).status).toBe(404);
    expect(hits.size).toBe(1);
  });
});

// A client page that trickles its answer must not hold GET /auth for long, nor again and again:
// the answer's headers get 1.5 s, the whole fetch 3 s, and a failure is remembered for the
// whole origin for a minute (a new query string or path does not get round it), in Blobs (the
// real local server), in a bounded number of records. A local server plays the hostile page;
// the budgets are passed small, and the minute is an injected clock.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearClientCache, CLIENT_FETCH_BUDGET, discoverClient } from "../../netlify/lib/clients/discovery.ts";
import { FAILURE_TTL_MS, storedFetchFailures } from "../../netlify/lib/clients/fetch-failures.ts";
import { FetchFailed, fetchDocument, type Fetcher } from "../../netlify/lib/clients/safe-fetch.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore, type KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { serveHostile } from "../helpers/hostile-responses.ts";
import { fixedClock } from "../helpers/runtime.ts";

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if (!serveHostile(new URL(req.url ?? "/", "http://x").pathname, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const onlyLocal = (ip: string) => ip === "127.0.0.1";
const small = { policy: onlyLocal, headersTimeoutMs: 150, timeoutMs: 400 };

describe("the fetch's budget", () => {
  it("discovery gives a client page 1.5 s for its answer's headers and 3 s in all", () => {
    expect(CLIENT_FETCH_BUDGET).toEqual({ headersTimeoutMs: 1500, timeoutMs: 3000 });
  });

  it("a page that never sends its headers is dropped at the headers' budget, not the whole one", async () => {
    const failed = fetchDocument(new URL(`${base}/silent`), { ...small, timeoutMs: 60_000 });
    await expect(failed).rejects.toBeInstanceOf(FetchFailed);
    await expect(failed).rejects.toThrow(/sent no answer within 150 ms/);
  });

  it("a page that sends its headers and then drips its body is dropped at the whole budget", async () => {
    const failed = fetchDocument(new URL(`${base}/drip`), { ...small, headersTimeoutMs: 1000, timeoutMs: 2000 });
    await expect(failed).rejects.toThrow(/took longer than 2000 ms/);
  });
});

describe("a failed fetch is remembered for its origin, for a minute", () => {
  const clock = fixedClock();
  let store: KeyValueStore;
  /** client.test names the local server; fetched over plain http at 127.0.0.1. */
  const localFetcher: Fetcher = (url) => fetchDocument(new URL(`${base}${url.pathname}${url.search}`), small);
  const discover = (clientId: string) => discoverClient(new URL(clientId), { fetcher: localFetcher, now: () => clock.now, failures: storedFetchFailures(store) });

  beforeAll(() => {
    store = blobStore(`test-${randomUUID()}`);
    clearClientCache();
  });

  it("a dripping page is fetched once; another query string or path of its origin is not fetched for a minute, then it is", async () => {
    hits.length = 0;
    await expect(discover("https://client.test/drip?try=1")).resolves.toMatchObject({ fetched: false, redirectUris: [] });
    expect(hits).toEqual(["/drip?try=1"]);
    for (const again of ["https://client.test/drip?try=2", "https://client.test/silent", "https://client.test/drip?try=1"]) {
      await expect(discover(again)).resolves.toMatchObject({ fetched: false, redirectUris: [] });
    }
    expect(hits).toEqual(["/drip?try=1"]);
    // Another origin is its own matter.
    await discover("https://other.client.test/silent");
    expect(hits).toEqual(["/drip?try=1", "/silent"]);
    clock.advance(FAILURE_TTL_MS + 1);
    await discover("https://client.test/drip?try=3");
    expect(hits).toEqual(["/drip?try=1", "/silent", "/drip?try=3"]);
  });

  it("when storage does not answer, discovery goes on as if nothing were remembered (it never throws)", async () => {
    const down: KeyValueStore = { ...store, get: () => Promise.reject(new Error("down")), set: () => Promise.reject(new Error("down")) };
    const info = await discoverClient(new URL("https://third.client.test/silent"), { fetcher: localFetcher, failures: storedFetchFailures(down) });
    expect(info).toMatchObject({ fetched: false });
  });

  it("a flood of origins fills at most 4,096 records: each origin has a slot by its hash", () => {
    const keys = new Set(Array.from({ length: 20_000 }, (_, i) => RECORDS.clientFailure.key(`https://c${i}.example`)));
    expect(keys.size).toBeLessThanOrEqual(4096);
    expect(keys.size).toBeGreaterThan(4000);
  });
});

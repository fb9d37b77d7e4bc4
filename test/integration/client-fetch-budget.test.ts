// A client page that trickles its answer must not hold GET /auth for long, nor again and again:
// the answer's headers get 1.5 s, the whole fetch 3 s; a client_id that was too slow is not
// fetched again for a minute (that exact client_id: never another beside it, and never for a
// 404 or a 500 answered at once), and a registrable domain past three slow client_ids in a
// minute gets the short budget and writes nothing more (a1.evil.test, a2.evil.test, …), in
// Blobs (the real local server), one record per domain. A local server plays the hostile
// pages; the budgets discovery hands the fetcher are recorded and passed on ten times smaller,
// and the minute is an injected clock.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clearClientCache, discoverClient } from "../../netlify/lib/clients/discovery.ts";
import { registrableDomain, storedFetchFailures } from "../../netlify/lib/clients/fetch-failures.ts";
import {
  FetchFailed,
  fetchDocument,
  FetchTimedOut,
  type FetchBudget,
  type Fetcher,
} from "../../netlify/lib/clients/safe-fetch.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore, type KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { serveHostile } from "../helpers/hostile-responses.ts";
import { fixedClock } from "../helpers/runtime.ts";
import {
  CLIENT_FETCH_BUDGET,
  FAILURE_TTL_MS,
  SHORT_FETCH_BUDGET,
  SLOW_PER_DOMAIN,
} from "../../netlify/lib/core/policy.ts";

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (serveHostile(path, res)) return;
    if (path === "/error") return void res.writeHead(500).end("boom");
    if (path === "/client.json") {
      const document = {
        client_id: "https://app.evil.test/client.json",
        client_name: "Fast app",
        redirect_uris: ["https://app.evil.test/cb"],
      };
      return void res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(document));
    }
    res.writeHead(404).end();
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
    await expect(failed).rejects.toBeInstanceOf(FetchTimedOut);
    await expect(failed).rejects.toThrow(/sent no answer within 150 ms/);
  });

  it("a page that sends its headers and then drips its body is dropped at the whole budget", async () => {
    const failed = fetchDocument(new URL(`${base}/drip`), { ...small, headersTimeoutMs: 1000, timeoutMs: 2000 });
    await expect(failed).rejects.toThrow(/took longer than 2000 ms/);
    await expect(failed).rejects.toBeInstanceOf(FetchTimedOut);
  });

  it("a status is a failure, not slowness, and carries its number", async () => {
    const failed = fetchDocument(new URL(`${base}/error`), small);
    await expect(failed).rejects.toBeInstanceOf(FetchFailed);
    await expect(failed).rejects.not.toBeInstanceOf(FetchTimedOut);
    await expect(failed).rejects.toMatchObject({ status: 500 });
  });
});

describe("what a slow client page leaves remembered", () => {
  const clock = fixedClock();
  let store: KeyValueStore;
  /** The budget discovery handed each fetch, by the client_id's host. */
  const budgets: { host: string; budget: FetchBudget | undefined }[] = [];
  /** Budgets are passed on this many times smaller (the hostile pages need no more). */
  let scale = 10;
  /** Any https host names the local server, fetched over plain http at 127.0.0.1 within the
   * budget discovery gives, scaled. */
  const localFetcher: Fetcher = async (url, budget) => {
    budgets.push({ host: url.hostname, budget });
    const scaled = budget
      ? { headersTimeoutMs: budget.headersTimeoutMs / scale, timeoutMs: budget.timeoutMs / scale }
      : {};
    const doc = await fetchDocument(new URL(`${base}${url.pathname}${url.search}`), { ...small, ...scaled });
    return { ...doc, url: url.href };
  };
  const discover = (clientId: string) =>
    discoverClient(new URL(clientId), {
      fetcher: localFetcher,
      now: () => clock.now,
      failures: storedFetchFailures(store),
      cacheMs: 0,
    });

  beforeAll(() => {
    store = blobStore(`test-${randomUUID()}`);
    clearClientCache();
  });

  it("a dripping page is fetched once a minute; another query string, path or host beside it is its own client, fetched", async () => {
    hits.length = 0;
    await expect(discover("https://client.test/drip?try=1")).resolves.toMatchObject({
      fetched: false,
      unread: true,
      redirectUris: [],
    });
    await expect(discover("https://client.test/drip?try=1")).resolves.toMatchObject({ fetched: false, unread: true });
    expect(hits).toEqual(["/drip?try=1"]);
    await discover("https://client.test/drip?try=2");
    await discover("https://client.test/elsewhere");
    await discover("https://other.client.test/drip?try=1");
    expect(hits).toEqual(["/drip?try=1", "/drip?try=2", "/elsewhere", "/drip?try=1"]);
    clock.advance(FAILURE_TTL_MS + 1);
    await discover("https://client.test/drip?try=1");
    expect(hits.at(-1)).toBe("/drip?try=1");
    expect(hits).toHaveLength(5);
  });

  it("a 404 or a 500 answered at once is not remembered: the same client_id is fetched again, and so is its neighbour", async () => {
    clock.advance(FAILURE_TTL_MS + 1);
    hits.length = 0;
    for (let i = 0; i < 2; i++) {
      await expect(discover("https://prompt.test/does-not-exist")).resolves.toEqual({
        clientId: "https://prompt.test/does-not-exist",
        redirectUris: [],
        fetched: false,
      });
      await expect(discover("https://prompt.test/error")).resolves.toMatchObject({ fetched: false, unread: true });
    }
    expect(hits).toEqual(["/does-not-exist", "/error", "/does-not-exist", "/error"]);
    expect(await store.list(RECORDS.clientFailure.prefix)).toEqual(
      expect.not.arrayContaining([RECORDS.clientFailure.key(await registrableDomain("prompt.test"))]),
    );
  });

  it("many subdomains of one registrable domain: the first three get the whole budget, the rest the short one and write nothing; a fast document there is still read", async () => {
    clock.advance(FAILURE_TTL_MS + 1);
    budgets.length = 0;
    const flood = Array.from({ length: 8 }, (_, i) => `https://a${i}.evil.test/silent`);
    for (const clientId of flood)
      await expect(discover(clientId)).resolves.toMatchObject({ fetched: false, unread: true });
    expect(budgets.map((b) => b.budget)).toEqual([
      ...Array<FetchBudget>(SLOW_PER_DOMAIN).fill(CLIENT_FETCH_BUDGET),
      ...Array<FetchBudget>(8 - SLOW_PER_DOMAIN).fill(SHORT_FETCH_BUDGET),
    ]);
    // One record for the whole domain, holding three client_ids (hashed).
    const domainKey = RECORDS.clientFailure.key("evil.test");
    const record = await store.get<{ domain: string; slow: unknown[] }>(domainKey);
    expect(record).toMatchObject({ domain: "evil.test" });
    expect(record!.slow).toHaveLength(SLOW_PER_DOMAIN);
    expect(JSON.stringify(record)).not.toContain("a0.evil.test");
    // Past the count, a failure writes nothing: the later subdomains are fetched again (short).
    budgets.length = 0;
    await discover(flood[7]!);
    expect(budgets).toEqual([{ host: "a7.evil.test", budget: SHORT_FETCH_BUDGET }]);
    // Never a verdict on the domain: a genuine document under it, answered at once, is read.
    scale = 1;
    budgets.length = 0;
    try {
      await expect(discover("https://app.evil.test/client.json")).resolves.toMatchObject({
        fetched: true,
        name: "Fast app",
      });
    } finally {
      scale = 10;
    }
    expect(budgets).toEqual([{ host: "app.evil.test", budget: SHORT_FETCH_BUDGET }]);
    // A minute later the domain has its whole budget again.
    clock.advance(FAILURE_TTL_MS + 1);
    budgets.length = 0;
    await discover("https://a9.evil.test/silent");
    expect(budgets[0]!.budget).toEqual(CLIENT_FETCH_BUDGET);
  });

  it("when storage does not answer, discovery goes on as if nothing were remembered (it never throws)", async () => {
    const down: KeyValueStore = {
      ...store,
      get: () => Promise.reject(new Error("down")),
      set: () => Promise.reject(new Error("down")),
    };
    const info = await discoverClient(new URL("https://third.client.test/silent"), {
      fetcher: localFetcher,
      failures: storedFetchFailures(down),
    });
    expect(info).toMatchObject({ fetched: false, unread: true });
  });

  it("a flood of domains fills at most 4,096 records: each registrable domain has a slot by its hash", () => {
    const keys = new Set(Array.from({ length: 20_000 }, (_, i) => RECORDS.clientFailure.key(`c${i}.example`)));
    expect(keys.size).toBeLessThanOrEqual(4096);
    expect(keys.size).toBeGreaterThan(4000);
  });
});

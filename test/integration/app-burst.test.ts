// One app's burst: an agent host redeems or refreshes many grants of one app at once (several
// sessions, several connectors), with storage a network round trip away (30 ms added to every
// operation). Every request is answered 200, and the owner's console then shows every grant:
// nothing lost, nothing refused. (Before: every redemption updated the app's one summary
// record with a conditional write, and writers that kept colliding ran out of tries: 503.)
// The store is the test runtime's, whichever Blobs that runtime stands on.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AccountOverview } from "../../netlify/lib/pages/account-view.ts";
import { consoleGet, consoleSignIn } from "../helpers/console.ts";
import { runHousekeeping } from "../../netlify/lib/endpoints/hourly-housekeeping.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { StorageUnavailable, type KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { appIdOf } from "../../netlify/lib/protocol/revocations.ts";
import { introspect, postToken, signInForCode } from "../helpers/endpoints.ts";
import { CLIENT_ID, codeForm, refreshForm, type SignedIn, type Tokens } from "../helpers/requests.ts";
import { fastRuntime } from "../helpers/attack-kit.ts";
import { inBatches } from "../helpers/seed-grants.ts";
import { slowStore } from "../helpers/slow-store.ts";
import type { TestRuntime } from "../helpers/runtime.ts";

const AT_ONCE = 50;
const LATENCY_MS = 30;
const DAY = 24 * 60 * 60 * 1000;

/** The same runtime, its store 30 ms away. */
const distant = (rt: TestRuntime): TestRuntime => ({ ...rt, store: slowStore(rt.store, LATENCY_MS) });

async function codes(rt: TestRuntime, count: number): Promise<SignedIn[]> {
  return inBatches(
    Array.from({ length: count }, (_, i) => i),
    5,
    () => signInForCode(rt),
  );
}

async function grantsShown(rt: TestRuntime): Promise<Record<string, number>> {
  const response = await consoleGet(rt, { cookie: await consoleSignIn(rt) });
  expect(response.status).toBe(200);
  const view = (await response.json()) as AccountOverview;
  return Object.fromEntries(view.apps.map((app) => [app.clientId, app.grants]));
}

async function allActive(rt: TestRuntime, tokens: readonly Tokens[]): Promise<boolean[]> {
  return inBatches(
    tokens,
    10,
    async (t) => ((await (await introspect(rt, t.access_token)).json()) as { active: boolean }).active,
  );
}

/** The store, but its lists of keys under `prefix` fail. */
function withoutListing(store: KeyValueStore, prefix: string): KeyValueStore {
  return {
    get: (key) => store.get(key),
    getVersioned: (key) => store.getVersioned(key),
    set: (key, value) => store.set(key, value),
    setIfNew: (key, value) => store.setIfNew(key, value),
    setIfUnchanged: (key, value, version) => store.setIfUnchanged(key, value, version),
    delete: (key) => store.delete(key),
    list: (listed) => (listed.startsWith(prefix) ? Promise.reject(new StorageUnavailable("list")) : store.list(listed)),
  };
}

async function tokensOf(responses: readonly Response[]): Promise<Tokens[]> {
  expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
  return Promise.all(responses.map(async (r) => (await r.json()) as Tokens));
}

beforeEach(() => {
  // Kept out of the test output: the server's log of a fold cut short, and of the connection
  // doctor's log, whose record per app loses steps to a burst (it is best effort, bounded).
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe(`one app's burst, ${LATENCY_MS} ms per storage operation`, { timeout: 120_000 }, () => {
  it(`${AT_ONCE} code redemptions at once: 200 each, every token live, and the console shows all ${AT_ONCE}`, async () => {
    const rt = await fastRuntime();
    const signedIn = await codes(rt, AT_ONCE);
    const far = distant(rt);
    const tokens = await tokensOf(await Promise.all(signedIn.map((s) => postToken(far, codeForm(s)))));
    expect(await allActive(rt, tokens)).toEqual(tokens.map(() => true));
    expect(await grantsShown(far)).toEqual({ [CLIENT_ID]: AT_ONCE });
  });

  it(`${AT_ONCE} refreshes at once: 200 each, and the console shows all ${AT_ONCE} past the day they would have expired unrefreshed`, async () => {
    const rt = await fastRuntime();
    const far = distant(rt);
    // Redeemed a few at a time, without delay: the burst here is the refreshes'.
    const first = await tokensOf(await inBatches(await codes(rt, AT_ONCE), 5, (s) => postToken(rt, codeForm(s))));
    // Their access tokens (30 days) have expired; their refresh tokens (90 days) have not.
    rt.clock.advance(80 * DAY);
    const refreshed = await tokensOf(await Promise.all(first.map((t) => postToken(far, refreshForm(t.refresh_token)))));
    expect(await allActive(rt, refreshed)).toEqual(refreshed.map(() => true));
    // Past the day every grant would have ended unrefreshed: only a refresh each counted moves them.
    rt.clock.advance(15 * DAY);
    expect(await grantsShown(far)).toEqual({ [CLIENT_ID]: AT_ONCE });
  });

  it("a burst whose folds all fail still shows every grant, and the next console load folds them", async () => {
    const rt = await fastRuntime();
    const signedIn = await codes(rt, 10);
    // Every fold fails at its first step (its list of the app's changes): the changes stay.
    const foldless = withoutListing(rt.store, RECORDS.appChange.prefix);
    await tokensOf(await Promise.all(signedIn.map((s) => postToken(distant({ ...rt, store: foldless }), codeForm(s)))));
    expect(await rt.store.get(RECORDS.appSummary.key(appIdOf(CLIENT_ID)))).toBeNull();
    expect(await grantsShown(rt)).toEqual({ [CLIENT_ID]: 10 });
    // That load folded them (after its answer; here, with no waitUntil, before it).
    expect(await rt.store.list(RECORDS.appChange.prefix)).toEqual([]);
    expect(await grantsShown(rt)).toEqual({ [CLIENT_ID]: 10 });
  });

  it("and the hourly housekeeping folds what a burst left waiting", async () => {
    const rt = await fastRuntime();
    const foldless = withoutListing(rt.store, RECORDS.appChange.prefix);
    await tokensOf(
      await Promise.all((await codes(rt, 5)).map((s) => postToken({ ...rt, store: foldless }, codeForm(s)))),
    );
    expect(await rt.store.list(RECORDS.appChange.prefix)).toHaveLength(5);
    await runHousekeeping(rt);
    expect(await rt.store.list(RECORDS.appChange.prefix)).toEqual([]);
    expect(await rt.store.get(RECORDS.appSummary.key(appIdOf(CLIENT_ID)))).toMatchObject({
      kind: "app-summary",
      clientId: CLIENT_ID,
    });
    expect(await grantsShown(rt)).toEqual({ [CLIENT_ID]: 5 });
  });
});

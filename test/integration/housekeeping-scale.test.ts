// Housekeeping at 100,000 expired grants (years of an MCP host reconnecting daily, left to
// expire), against a real local Blobs server of its own: each run does a bounded amount of
// work (a shard of the kind listed, at most its budget of records read and deleted) and the
// next run resumes where it stopped, never examining a record twice.
import { randomBytes } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARDS, sweepExpired } from "../../netlify/lib/platform/expiry-sweep.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore, type KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { startLocalBlobs, writeRecordsDirectly, type LocalBlobs } from "../helpers/local-blobs.ts";
import { START_TIME } from "../helpers/runtime.ts";

const EXPIRED = 100_000;
const BUDGET = 1000;
const STORE = "sweep-scale";

let blobs: LocalBlobs;
let store: KeyValueStore;
const listedPerCall: number[] = [];

beforeAll(async () => {
  blobs = await startLocalBlobs({ siteID: "scale" });
  const connection = { siteID: blobs.siteID, token: blobs.token, edgeURL: blobs.url, uncachedEdgeURL: blobs.url };
  // The local server walks its whole folder for each list: on a busy machine that can pass the
  // production deadline, which is not what this test is about.
  const inner = blobStore(STORE, { connection, deadlineMs: 60_000 });
  store = {
    ...inner,
    get: (k) => inner.get(k),
    set: (k, v) => inner.set(k, v),
    setIfNew: (k, v) => inner.setIfNew(k, v),
    getVersioned: (k) => inner.getVersioned(k),
    setIfUnchanged: (k, v, w) => inner.setIfUnchanged(k, v, w),
    delete: (k) => inner.delete(k),
    list: async (prefix) => {
      const keys = await inner.list(prefix);
      listedPerCall.push(keys.length);
      return keys;
    },
  };
  const records = Array.from(
    { length: EXPIRED },
    () =>
      [RECORDS.grant.key(randomBytes(16).toString("base64url")), { kind: "grant", expiresAt: START_TIME - 1 }] as const,
  );
  await writeRecordsDirectly(blobs, STORE, records);
  // The layout is the server's own: a seeded record reads back through it.
  expect(await store.get(records[0]![0])).toEqual(records[0]![1]);
}, 300_000);

afterAll(async () => {
  await blobs?.stop();
});

const left = async () =>
  (await readdir(join(blobs.directory, "entries", blobs.siteID, `site:${STORE}`, "grants"))).filter(
    (name) => !name.startsWith("."),
  ).length;

describe("housekeeping at 100,000 expired records", () => {
  it("each run examines its budget, lists one shard at a time, and the next run resumes where it stopped", async () => {
    const runs = [];
    for (let run = 0; run < 3; run++) {
      listedPerCall.length = 0;
      runs.push(await sweepExpired(store, START_TIME, BUDGET));
      // No list of the whole kind: a shard is about 1/64 of it.
      expect(Math.max(...listedPerCall)).toBeLessThan((3 * EXPIRED) / SHARDS.length);
    }
    expect(runs).toEqual(Array.from({ length: 3 }, () => ({ examined: BUDGET, deleted: BUDGET, complete: false })));
    // Nothing examined twice, nothing skipped: exactly three budgets' worth are gone.
    expect(await left()).toBe(EXPIRED - 3 * BUDGET);
    expect(await store.get(RECORDS.sweepCursor.key())).toMatchObject({ sweeping: RECORDS.grant.name });
  }, 600_000);
});

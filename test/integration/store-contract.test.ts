// The store's contract, one suite run against both Blobs it meets: the local server of `netlify
// dev` and the tests (its local branch: content versions, the lock of local-write-lock.ts), and
// the production Blobs double (its production branch, the one Netlify runs: ETags, If-Match,
// If-None-Match). What the server's modules rely on must hold on both, so a test passing
// locally says something about production. Each side is started here, whatever the run's own
// Blobs are.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import {
  blobStore,
  isLocalBlobsServer,
  UnversionedRecord,
  type BlobsConnection,
  type KeyValueStore,
} from "../../netlify/lib/platform/store.ts";
import { startLocalBlobs, type LocalBlobs } from "../helpers/local-blobs.ts";
import { startProductionBlobs, type ProductionBlobs } from "../helpers/production-blobs.ts";

let local: LocalBlobs;
let double: ProductionBlobs;

beforeAll(async () => {
  [local, double] = await Promise.all([startLocalBlobs(), startProductionBlobs({ pageSize: 7 })]);
});
afterAll(async () => {
  await Promise.all([local.stop(), double.stop()]);
});

const SIDES: [string, () => BlobsConnection][] = [
  [
    "the local Blobs server",
    () => ({ siteID: local.siteID, token: local.token, edgeURL: local.url, uncachedEdgeURL: local.url }),
  ],
  ["the production Blobs double", () => double.connection],
];

describe.each(SIDES)("the store's contract, against %s", (side, connectionOf) => {
  /** A store of its own on this side, as one function instance opens it. */
  let name: string;
  const open = (): KeyValueStore => blobStore(name, { connection: connectionOf() });
  beforeAll(() => {
    name = `contract-${randomUUID()}`;
  });

  it("runs the store's branch for it: local for the local server, production for the double", () => {
    expect(isLocalBlobsServer(connectionOf().uncachedEdgeURL)).toBe(side === "the local Blobs server");
  });

  it("get: null for no record; a plain set (of a plain kind) writes, and a second replaces", async () => {
    const store = open();
    const key = RECORDS.appUsage.key(randomUUID());
    expect(await store.get(key)).toBeNull();
    await store.set(key, { n: 1 });
    expect(await store.get(key)).toEqual({ n: 1 });
    await store.set(key, { n: 2 });
    expect(await open().get(key)).toEqual({ n: 2 });
  });

  it("setIfNew writes once: a second is refused and the first stays", async () => {
    const key = RECORDS.usedCode.key(randomUUID());
    expect(await open().setIfNew(key, { first: true })).toBe(true);
    expect(await open().setIfNew(key, { first: false })).toBe(false);
    expect(await open().get(key)).toEqual({ first: true });
  });

  it("getVersioned of no record, then setIfUnchanged: created only while still absent", async () => {
    const key = RECORDS.passkeys.key();
    const store = blobStore(`contract-${randomUUID()}`, { connection: connectionOf() });
    const absent = await store.getVersioned(key);
    expect(absent).toEqual({ value: null, version: { exists: false } });
    expect(await store.setIfUnchanged(key, { n: 1 }, absent.version)).toBe(true);
    expect(await store.setIfUnchanged(key, { n: 2 }, absent.version)).toBe(false);
    expect(await store.get(key)).toEqual({ n: 1 });
  });

  it("setIfUnchanged replaces only at the version read: a stale or made-up one is refused", async () => {
    const key = RECORDS.appSummary.key(randomUUID());
    await open().setIfNew(key, { n: 1 });
    const read = await open().getVersioned<{ n: number }>(key);
    expect(read.value).toEqual({ n: 1 });
    expect(read.version).toMatchObject({ exists: true, etag: expect.any(String) });
    expect(await open().setIfUnchanged(key, { n: 2 }, read.version)).toBe(true);
    expect(await open().setIfUnchanged(key, { n: 3 }, read.version)).toBe(false);
    expect(await open().setIfUnchanged(key, { n: 3 }, { exists: true, etag: '"not-the-current-one"' })).toBe(false);
    expect(await open().get(key)).toEqual({ n: 2 });
  });

  it("a record deleted since it was read is not brought back by a write at its old version", async () => {
    const key = RECORDS.grant.key(randomUUID());
    await open().setIfNew(key, { n: 1 });
    const read = await open().getVersioned(key);
    await open().delete(key);
    expect(await open().get(key)).toBeNull();
    expect(await open().setIfUnchanged(key, { n: 2 }, read.version)).toBe(false);
    expect(await open().get(key)).toBeNull();
    // Deleting what is not there is no error.
    await open().delete(key);
  });

  it("a conditional write whose version has no etag throws, and writes nothing", async () => {
    const key = RECORDS.grant.key(randomUUID());
    await open().setIfNew(key, { n: 1 });
    const error: unknown = await open()
      .setIfUnchanged(key, { n: 2 }, { exists: true })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UnversionedRecord);
    expect((error as Error).message).toContain("no version");
    expect(await open().get(key)).toEqual({ n: 1 });
  });

  it("list: every key under a prefix once, however many pages, and no key of another kind", async () => {
    const store = blobStore(`contract-${randomUUID()}`, { connection: connectionOf() });
    const codes = Array.from({ length: 30 }, (_, i) => RECORDS.code.key(`code-${i}`));
    await Promise.all([
      ...codes.map((key) => store.setIfNew(key, { n: 1 })),
      store.setIfNew(RECORDS.usedCode.key("code-0"), { n: 1 }),
    ]);
    expect((await store.list(RECORDS.code.prefix)).sort()).toEqual([...codes].sort());
    expect(await store.list(RECORDS.usedCode.prefix)).toEqual([RECORDS.usedCode.key("code-0")]);
    expect(await store.list(RECORDS.grant.prefix)).toEqual([]);
  });

  const AT_ONCE = 20;

  it(`${AT_ONCE} setIfNew of one key at once, each from a store of its own: exactly one writes`, async () => {
    const key = RECORDS.usedCode.key(randomUUID());
    const results = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => open().setIfNew(key, { writer: i })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await open().get(key)).toEqual({ writer: results.indexOf(true) });
  });

  it(`${AT_ONCE} setIfUnchanged from one read at once, each from a store of its own: exactly one replaces it`, async () => {
    const key = RECORDS.revocations.key();
    await open().setIfNew(key, { n: 0 });
    const read = await open().getVersioned(key);
    const results = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => open().setIfUnchanged(key, { n: i + 1 }, read.version)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await open().get(key)).toEqual({ n: results.indexOf(true) + 1 });
  });
});

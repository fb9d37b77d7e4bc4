// The store module against the real local Blobs server.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";

const codeKey = RECORDS.code.key;

describe("the Blobs store", () => {
  it("round-trips JSON records and lists them by prefix", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    await store.setIfNew(codeKey("a"), { n: 1 });
    await store.setIfNew(RECORDS.grant.key("b"), { n: 2 });
    expect(await store.get(codeKey("a"))).toEqual({ n: 1 });
    expect(await store.get(codeKey("missing"))).toBeNull();
    expect(await store.list(RECORDS.code.prefix)).toEqual([codeKey("a")]);
    await store.delete(codeKey("a"));
    expect(await store.get(codeKey("a"))).toBeNull();
  });

  it("writes a key only once with setIfNew (the single-use guarantee of codes)", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    const key = RECORDS.usedCode.key("x");
    expect(await store.setIfNew(key, { first: true })).toBe(true);
    expect(await store.setIfNew(key, { first: false })).toBe(false);
    expect(await store.get(key)).toEqual({ first: true });
  });

  it("setIfUnchanged creates a record read as absent only if it is still absent", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    const key = RECORDS.passkeys.key();
    const absent = await store.getVersioned(key);
    expect(absent.value).toBeNull();
    expect(await store.setIfUnchanged(key, { n: 1 }, absent.version)).toBe(true);
    // Someone else created it since that read: refused, and the first write stays.
    expect(await store.setIfUnchanged(key, { n: 2 }, absent.version)).toBe(false);
    expect(await store.get(key)).toEqual({ n: 1 });
  });

  it("setIfUnchanged replaces a record read with its version; a stale tag is refused", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    const key = RECORDS.passkeys.key();
    await store.setIfNew(key, { n: 1 });
    const read = await store.getVersioned<{ n: number }>(key);
    expect(read.value).toEqual({ n: 1 });
    expect(await store.setIfUnchanged(key, { n: 2 }, read.version)).toBe(true);
    expect(await store.get(key)).toEqual({ n: 2 });
    // The version read before that write is stale now.
    expect(await store.setIfUnchanged(key, { n: 3 }, read.version)).toBe(false);
    expect(await store.setIfUnchanged(key, { n: 3 }, { exists: true, etag: '"not-the-current-one"' })).toBe(false);
    expect(await store.get(key)).toEqual({ n: 2 });
  });
});

// The local Blobs server checks a write's condition and then writes, with awaits in between;
// production Blobs does both in one step. The store makes the local run as strict (writes to a
// key take turns there, across threads and processes: platform/local-write-lock.ts). Each
// writer below has a store object of its own, as each request under `netlify dev` has.
describe("the Blobs store, against the local server: conditional writes at once", () => {
  const AT_ONCE = 20;

  it(`${AT_ONCE} setIfNew of one key at once: exactly one writes`, async () => {
    const name = `test-${randomUUID()}`;
    const key = RECORDS.usedCode.key("raced");
    const results = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => blobStore(name).setIfNew(key, { writer: i })),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await blobStore(name).get(key)).toEqual({ writer: results.indexOf(true) });
  });

  it(`${AT_ONCE} setIfUnchanged from one read at once: exactly one replaces it`, async () => {
    const name = `test-${randomUUID()}`;
    const key = RECORDS.passkeys.key();
    await blobStore(name).setIfNew(key, { n: 0 });
    const stores = Array.from({ length: AT_ONCE }, () => blobStore(name));
    const reads = await Promise.all(stores.map((store) => store.getVersioned(key)));
    const results = await Promise.all(
      stores.map((store, i) => store.setIfUnchanged(key, { n: i + 1 }, reads[i]!.version)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await blobStore(name).get(key)).toEqual({ n: results.indexOf(true) + 1 });
  });

  it(`${AT_ONCE} creations of an absent record at once: exactly one creates it`, async () => {
    const name = `test-${randomUUID()}`;
    const key = RECORDS.passkeys.key();
    const stores = Array.from({ length: AT_ONCE }, () => blobStore(name));
    const reads = await Promise.all(stores.map((store) => store.getVersioned(key)));
    const results = await Promise.all(stores.map((store, i) => store.setIfUnchanged(key, { n: i }, reads[i]!.version)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

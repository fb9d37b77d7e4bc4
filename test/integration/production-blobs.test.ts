// The production Blobs double (test/helpers/production-blobs.ts) as the store meets it: that the
// store runs its production branch against it (ETags, If-Match, If-None-Match, strong reads),
// what the double does that the local server does not (ETags that never repeat, stale reads
// through the CDN, list pages), and what the store makes of each fault the double injects: an
// error status, a wrong token, a dropped connection, a stalled request, an answer without its
// ETag. The contract both Blobs share is store-contract.test.ts.
import { randomUUID } from "node:crypto";
import { getStore } from "@netlify/blobs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import {
  blobStore,
  StorageUnavailable,
  UnversionedRecord,
  type KeyValueStore,
} from "../../netlify/lib/platform/store.ts";
import { FAST_PASSWORD_HASH } from "../helpers/attack-kit.ts";
import { postToken, signInForCode } from "../helpers/endpoints.ts";
import { startProductionBlobs, type BlobsRequest, type ProductionBlobs } from "../helpers/production-blobs.ts";
import { codeForm } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";

let double: ProductionBlobs;
const faults: { remove(): void }[] = [];

beforeAll(async () => {
  double = await startProductionBlobs({ pageSize: 7 });
});
afterEach(() => {
  for (const fault of faults.splice(0)) fault.remove();
  double.latencyMs = 0;
});
afterAll(() => double.stop());

/** A store of its own on the double (a short deadline where a test waits for one to pass). */
const open = (name = `double-${randomUUID()}`, deadlineMs?: number): KeyValueStore =>
  blobStore(name, { connection: double.connection, ...(deadlineMs ? { deadlineMs } : {}) });

const onKey = (key: string) => (request: BlobsRequest) => request.key === key;

async function failure(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => null,
    (error: unknown) => error,
  );
}

describe("the store against the production Blobs double: its production branch", () => {
  it("sends every request to the uncached edge, writes codes with If-None-Match and replacements with If-Match", async () => {
    const store = open();
    const key = RECORDS.usedCode.key(randomUUID());
    double.requests.length = 0;
    expect(await store.setIfNew(key, { n: 1 })).toBe(true);
    const read = await store.getVersioned(key);
    expect(read.version).toMatchObject({ exists: true, etag: expect.stringMatching(/^".+"$/) });
    expect(await store.setIfUnchanged(key, { n: 2 }, read.version)).toBe(true);
    expect(double.requests.map(({ operation, edge, condition }) => [operation, edge, condition])).toEqual([
      ["set", "uncached", "if-none-match"],
      ["get", "uncached", null],
      ["set", "uncached", "if-match"],
    ]);
  });

  it("gives every write a new ETag, the same bytes too: a version read before an identical write is stale", async () => {
    const store = open();
    const key = RECORDS.passkeys.key();
    await store.setIfNew(key, { n: 1 });
    const first = await store.getVersioned(key);
    expect(await store.setIfUnchanged(key, { n: 1 }, first.version)).toBe(true);
    const second = await store.getVersioned(key);
    expect(second.version).not.toEqual(first.version);
    // (The local branch's versions are content hashes: there the first would still stand.)
    expect(await store.setIfUnchanged(key, { n: 2 }, first.version)).toBe(false);
    expect(await store.get(key)).toEqual({ n: 1 });
  });

  it("serves reads through the CDN (edgeURL) stale, as production may; the store's strong reads see every write", async () => {
    const name = `double-${randomUUID()}`;
    const key = RECORDS.appUsage.key("a");
    const store = open(name);
    await store.set(key, { n: 1 });
    const eventual = getStore({ name, ...double.connection, consistency: "eventual" });
    expect(await eventual.get(key, { type: "json" })).toEqual({ n: 1 });
    await store.set(key, { n: 2 });
    expect(await eventual.get(key, { type: "json" })).toEqual({ n: 1 });
    expect(await store.get(key)).toEqual({ n: 2 });
  });

  it("answers the rest of the client's API as it expects: metadata, HEAD, a read by ETag (304), paged lists, deleteAll", async () => {
    const name = `double-${randomUUID()}`;
    const blobs = getStore({ name, ...double.connection, consistency: "strong" });
    const written = await blobs.set("a/b", "bytes", { metadata: { kind: "test" } });
    expect(written).toEqual({ modified: true, etag: expect.stringMatching(/^".+"$/) });
    expect(await blobs.getWithMetadata("a/b")).toEqual({
      data: "bytes",
      etag: written.etag,
      metadata: { kind: "test" },
    });
    expect(await blobs.getMetadata("a/b")).toEqual({ etag: written.etag, metadata: { kind: "test" } });
    expect(await blobs.getWithMetadata("a/b", { etag: written.etag })).toMatchObject({
      data: null,
      etag: written.etag,
    });
    expect(await blobs.set("a/b", "again", { onlyIfMatch: '"stale"' })).toEqual({ modified: false });
    expect(await blobs.set("a/b", "again", { onlyIfNew: true })).toEqual({ modified: false });
    for (const key of ["a/c", "a/d", "b/a", "a/e", "a/f", "a/g", "a/h", "a/i"]) await blobs.set(key, key);
    const pages = [];
    for await (const page of blobs.list({ prefix: "a/", paginate: true })) pages.push(page.blobs.map((b) => b.key));
    expect(pages).toEqual([["a/b", "a/c", "a/d", "a/e", "a/f", "a/g", "a/h"], ["a/i"]]);
    expect(await blobs.deleteAll()).toEqual({ deletedBlobs: 9 });
    expect(await blobs.get("a/b")).toBeNull();
  });

  it("lists a page at a time: the store follows the cursors to the last key", async () => {
    const store = open();
    const keys = Array.from({ length: 30 }, (_, i) => RECORDS.grant.key(`g${String(i).padStart(2, "0")}`));
    for (const key of keys) await store.setIfNew(key, { n: 1 });
    double.requests.length = 0;
    expect(await store.list(RECORDS.grant.prefix)).toEqual(keys);
    expect(double.requests.filter((r) => r.operation === "list")).toHaveLength(Math.ceil(keys.length / 7));
  });

  it("with 30 ms added to every request, twenty setIfNew of one key at once: exactly one writes", async () => {
    double.latencyMs = 30;
    const name = `double-${randomUUID()}`;
    const key = RECORDS.usedCode.key("raced");
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => open(name).setIfNew(key, { writer: i })));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe("the store against the production Blobs double: faults", () => {
  it("a conditional write answered 503 on every try fails as storage, never as written (the client reports it written)", async () => {
    const store = open();
    const key = RECORDS.usedCode.key(randomUUID());
    const fault = double.inject({ match: onKey(key), fault: { status: 503 } });
    faults.push(fault);
    expect(await failure(store.setIfNew(key, { n: 1 }))).toBeInstanceOf(StorageUnavailable);
    // The client tried six times (its five retries), each refused.
    expect(fault.hits).toBe(6);
    fault.remove();
    expect(await store.get(key)).toBeNull();
    // ...and a replacement the same way.
    await store.setIfNew(key, { n: 1 });
    const read = await store.getVersioned(key);
    faults.push(double.inject({ match: onKey(key), fault: { status: 500 } }));
    expect(await failure(store.setIfUnchanged(key, { n: 2 }, read.version))).toBeInstanceOf(StorageUnavailable);
  });

  it("a code whose used marker is answered 503: a 503, the code still redeemable once, and never twice", async () => {
    const rt = await testRuntime({ connection: double.connection, env: { PASSWORD_HASH: FAST_PASSWORD_HASH } });
    const signedIn = await signInForCode(rt, "profile");
    const fault = double.inject({
      match: (r) => r.operation === "set" && r.key?.startsWith(RECORDS.usedCode.prefix) === true,
      fault: { status: 503 },
    });
    expect((await postToken(rt, codeForm(signedIn))).status).toBe(503);
    fault.remove();
    expect(await rt.store.list(RECORDS.grant.prefix)).toEqual([]);
    expect((await postToken(rt, codeForm(signedIn))).status).toBe(200);
    expect((await postToken(rt, codeForm(signedIn))).status).toBe(400);
    expect(await rt.store.list(RECORDS.grant.prefix)).toHaveLength(1);
  });

  it("a conditional write refused for a wrong token fails as storage, never as written", async () => {
    const store = blobStore(`double-${randomUUID()}`, { connection: { ...double.connection, token: "not-the-token" } });
    expect(await failure(store.setIfNew(RECORDS.usedCode.key(randomUUID()), { n: 1 }))).toBeInstanceOf(
      StorageUnavailable,
    );
    expect(await failure(store.get(RECORDS.usedCode.key("x")))).toBeInstanceOf(StorageUnavailable);
  });

  it("one 503 is retried by the client and the write lands", async () => {
    const store = open();
    const key = RECORDS.usedCode.key(randomUUID());
    const fault = double.inject({ match: onKey(key), fault: { status: 503 }, times: 1 });
    expect(await store.setIfNew(key, { n: 1 })).toBe(true);
    expect(fault.hits).toBe(1);
    expect(await store.get(key)).toEqual({ n: 1 });
  });

  it("a connection dropped on every try, or a request never answered, is StorageUnavailable", async () => {
    const key = RECORDS.appUsage.key(randomUUID());
    faults.push(double.inject({ match: (r) => r.key === key && r.operation === "get", fault: "drop" }));
    expect(await failure(open().get(key))).toBeInstanceOf(StorageUnavailable);
    faults.push(double.inject({ match: (r) => r.key === key && r.operation === "set", fault: "stall" }));
    expect(await failure(open(undefined, 300).set(key, { n: 1 }))).toBeInstanceOf(StorageUnavailable);
  });

  it("a read answered without its ETag leaves a version the store will not write against: UnversionedRecord, nothing written", async () => {
    const store = open();
    const key = RECORDS.grant.key(randomUUID());
    await store.setIfNew(key, { n: 1 });
    faults.push(double.inject({ match: (r) => r.key === key && r.operation === "get", fault: "no-etag" }));
    const read = await store.getVersioned(key);
    expect(read).toEqual({ value: { n: 1 }, version: { exists: true } });
    expect(await failure(store.setIfUnchanged(key, { n: 2 }, read.version))).toBeInstanceOf(UnversionedRecord);
    expect(await store.get(key)).toEqual({ n: 1 });
  });

  it("a conditional write that landed but whose answer was lost is reported refused: the client retried it into its own 412", async () => {
    // What a caller of setIfNew must allow for (docs/security.md, known limits): a refusal is not
    // proof that someone else wrote.
    const store = open();
    const key = RECORDS.usedCode.key(randomUUID());
    faults.push(double.inject({ match: onKey(key), fault: "drop", when: "after", times: 1 }));
    expect(await store.setIfNew(key, { mine: true })).toBe(false);
    expect(await store.get(key)).toEqual({ mine: true });
  });
});

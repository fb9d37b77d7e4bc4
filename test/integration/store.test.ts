// The store module against the real local Blobs server.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { blobStore } from "../../netlify/lib/platform/store.ts";

describe("the Blobs store", () => {
  it("round-trips JSON records and lists them by prefix", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    await store.set("codes/a", { n: 1 });
    await store.set("grants/b", { n: 2 });
    expect(await store.get("codes/a")).toEqual({ n: 1 });
    expect(await store.get("codes/missing")).toBeNull();
    expect(await store.list("codes/")).toEqual(["codes/a"]);
    await store.delete("codes/a");
    expect(await store.get("codes/a")).toBeNull();
  });

  it("writes a key only once with setIfNew (the single-use guarantee of codes)", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    expect(await store.setIfNew("used/x", { first: true })).toBe(true);
    expect(await store.setIfNew("used/x", { first: false })).toBe(false);
    expect(await store.get("used/x")).toEqual({ first: true });
  });
});

// The record registry (netlify/lib/platform/records.ts): the store writes only keys of a kind
// declared there, every key in netlify/lib is built there, and housekeeping sweeps every kind
// it marks as swept. Because the store refuses the rest, the whole suite checks that every
// write path of the server uses a declared kind.
import { randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sweepExpired } from "../../netlify/lib/platform/expiry-sweep.ts";
import {
  ConditionalRecord,
  kindOfKey,
  RECORD_KINDS,
  RECORDS,
  SWEPT_KINDS,
  UnregisteredRecord,
  type PlainKey,
} from "../../netlify/lib/platform/records.ts";
import { blobStore, StorageUnavailable } from "../../netlify/lib/platform/store.ts";

const LIB = new URL("../../netlify/lib/", import.meta.url).pathname;
const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

describe("the store writes only declared kinds of record", () => {
  it.each(["used/x", "grant/x", "codes/", "owner/passkeys-2", "owner/other", "", "x"])(
    "refuses every kind of write to %j, with a clear error, and writes nothing",
    async (key) => {
      const store = blobStore(`test-${randomUUID()}`);
      const writes = [
        () => store.set(key as PlainKey, { n: 1 }),
        () => store.setIfNew(key, { n: 1 }),
        () => store.setIfUnchanged(key, { n: 1 }, { exists: false }),
        () => store.setIfUnchanged(key, { n: 1 }, { exists: true }),
        () => store.setIfUnchanged(key, { n: 1 }, { exists: true, etag: '"e"' }),
      ];
      for (const write of writes) {
        const error: unknown = await write().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(UnregisteredRecord);
        expect(error).not.toBeInstanceOf(StorageUnavailable);
        expect((error as Error).message).toContain("platform/records.ts");
      }
      expect(await store.list("")).toEqual([]);
    },
  );

  it("accepts the keys its kinds build", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    const keys = [
      RECORDS.code.key("ic_x"),
      RECORDS.usedCode.key("ic_x"),
      RECORDS.grant.key("g"),
      RECORDS.appSummary.key("a"),
      RECORDS.appChange.key("a", "g.c"),
      RECORDS.appUsage.key("a"),
      RECORDS.revocations.key(),
      RECORDS.throttleAddress.key("203.0.113.7"),
      RECORDS.throttleOverall.key(),
      RECORDS.throttleDevice.key("device:x"),
      RECORDS.throttleCensus.key(20_000),
      RECORDS.session.key("s"),
      RECORDS.signInEvent.key("1"),
      RECORDS.signInOverflow.key(492_000),
      RECORDS.usedChallenge.key("c"),
      RECORDS.appApproval.key("https://app.example.com/"),
      RECORDS.clientFailure.key("https://app.example.com"),
      RECORDS.usedAssertion.key("https://app.example.com/", "jti-1"),
      RECORDS.clientKeys.key("https://app.example.com/jwks.json"),
      RECORDS.clientLogo.key("ab"),
      RECORDS.passkeys.key(),
      RECORDS.sessionSeen.key("s"),
      RECORDS.alertSent.key("test"),
      RECORDS.connectionLog.key("a/x"),
      RECORDS.mcpCheckCount.key(29_000_000),
      RECORDS.sweepCursor.key(),
    ];
    // One key of every kind, each recognised as its own kind.
    expect(keys.map((key) => kindOfKey(key)?.name)).toEqual(RECORD_KINDS.map((kind) => kind.name));
    // Each as its kind is written: a plain set only where the kind allows it.
    for (const key of keys) {
      if (kindOfKey(key)!.writes === "plain") await store.set(key as PlainKey, { n: 1 });
      else expect(await store.setIfNew(key, { n: 1 })).toBe(true);
    }
    expect((await store.list("")).sort()).toEqual([...keys].sort());
  });
});

describe("each kind is written as declared: a plain set to a kind written conditionally is refused", () => {
  // The kinds a plain set may write: where a lost write costs a repeat at most. Every other kind
  // is written only with setIfNew / setIfUnchanged, so no writer undoes another's write unseen.
  const PLAIN = [
    RECORDS.appUsage,
    RECORDS.appApproval,
    RECORDS.clientFailure,
    RECORDS.clientKeys,
    RECORDS.clientLogo,
    RECORDS.sessionSeen,
    RECORDS.sweepCursor,
  ];

  it("declares these kinds plain, and every other one conditional (grants, codes, counters, summaries, passkeys...)", () => {
    expect(RECORD_KINDS.filter((kind) => kind.writes === "plain").map((kind) => kind.name)).toEqual(
      PLAIN.map((kind) => kind.name),
    );
    for (const kind of [
      RECORDS.grant,
      RECORDS.code,
      RECORDS.usedCode,
      RECORDS.appSummary,
      RECORDS.revocations,
      RECORDS.passkeys,
      RECORDS.throttleAddress,
      RECORDS.session,
    ]) {
      expect(kind.writes, kind.name).toBe("conditional");
    }
  });

  it("does not compile a plain set with a key of a conditional kind", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    // The type of the key says how its kind is written: each line below is a type error.
    // @ts-expect-error a grant is written only conditionally
    await expect(store.set(RECORDS.grant.key("g"), { n: 1 })).rejects.toBeInstanceOf(ConditionalRecord);
    // @ts-expect-error a key spelled as a string says nothing of its kind (at run time its kind decides: this one is plain)
    await store.set(`${RECORDS.appUsage.prefix}a`, { n: 1 });
    await store.set(RECORDS.appUsage.key("b"), { n: 1 });
    expect((await store.list("")).sort()).toEqual([RECORDS.appUsage.key("a"), RECORDS.appUsage.key("b")]);
  });

  it.each(RECORD_KINDS.filter((kind) => kind.writes === "conditional").map((kind) => [kind.name, kind] as const))(
    "%s: a plain set is refused at run time too, with a clear error, and writes nothing",
    async (_, kind) => {
      const store = blobStore(`test-${randomUUID()}`);
      const key = kind.expiresField === null ? kind.prefix : `${kind.prefix}x`;
      const error: unknown = await store.set(key as PlainKey, { n: 1 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConditionalRecord);
      expect(error).not.toBeInstanceOf(StorageUnavailable);
      expect((error as Error).message).toContain("written only conditionally");
      expect(await store.list("")).toEqual([]);
      // As declared, a conditional write goes through.
      expect(await store.setIfNew(key, { n: 1 })).toBe(true);
    },
  );
});

describe("the registry", () => {
  it("has one prefix per kind, none inside another (a sweep or a list of one kind never reaches another)", () => {
    for (const a of RECORD_KINDS) {
      for (const b of RECORD_KINDS)
        if (a !== b) expect(a.prefix.startsWith(b.prefix), `${a.name} inside ${b.name}`).toBe(false);
    }
  });

  it("names an expiry field for every kind it sweeps; only single records (revocations, the sweep's cursor, the passkeys) are kept for good", () => {
    for (const kind of SWEPT_KINDS) expect(kind.expiresField).toBe("expiresAt");
    const kept = [RECORDS.revocations, RECORDS.passkeys, RECORDS.sweepCursor];
    expect(RECORD_KINDS.filter((kind) => kind.expiresField === null).map((kind) => kind.name)).toEqual(
      kept.map((kind) => kind.name),
    );
    for (const kind of kept) expect([kind.key(), kindOfKey(`${kind.prefix}x`)]).toEqual([kind.prefix, undefined]);
  });

  it("keeps code and challenge keys to hashes: no key contains the secret", () => {
    const code = `ic_${"A".repeat(43)}`;
    for (const key of [RECORDS.code.key(code), RECORDS.usedCode.key(code), RECORDS.usedChallenge.key(code)])
      expect(key).not.toContain("AAAA");
  });

  it("is the only place in netlify/lib that spells a key prefix", async () => {
    const files = (await readdir(LIB, { recursive: true })).filter(
      (f) => f.endsWith(".ts") && f !== join("platform", "records.ts"),
    );
    const offending: string[] = [];
    for (const file of files) {
      const text = await readFile(join(LIB, file), "utf8");
      for (const kind of RECORD_KINDS) {
        const prefix = kind.prefix.split("/")[0]! + "/";
        for (const quote of ['"', "'", "`"])
          if (text.includes(quote + prefix)) offending.push(`${file}: ${quote}${prefix}`);
      }
    }
    expect(offending).toEqual([]);
  });
});

describe("housekeeping sweeps every kind the registry marks as swept", () => {
  it("deletes one expired record of each swept kind and keeps the live ones and the passkeys", async () => {
    const store = blobStore(`test-${randomUUID()}`);
    for (const kind of SWEPT_KINDS) {
      await store.setIfNew(`${kind.prefix}expired`, { [kind.expiresField]: NOW - 1 });
      await store.setIfNew(`${kind.prefix}exactly-now`, { [kind.expiresField]: NOW });
      await store.setIfNew(`${kind.prefix}no-expiry`, { something: "else" });
      await store.setIfNew(`${kind.prefix}live`, { [kind.expiresField]: NOW + 1 });
    }
    await store.setIfNew(RECORDS.passkeys.key(), { kind: "passkeys", items: [] });

    const result = await sweepExpired(store, NOW);

    expect(result).toEqual({ examined: 4 * SWEPT_KINDS.length, deleted: 3 * SWEPT_KINDS.length, complete: true });
    const left = (await store.list("")).sort();
    expect(left).toEqual([...SWEPT_KINDS.map((kind) => `${kind.prefix}live`), RECORDS.passkeys.key()].sort());
  });
});

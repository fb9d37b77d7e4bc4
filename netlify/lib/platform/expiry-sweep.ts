// The hourly sweep of expired records, kind by kind as records.ts declares them (docs/data-model.md).
// Readers check expiry themselves, so a late sweep is only a matter of space, never of security.
// A run examines a bounded number of records and leaves a cursor where it stopped; kinds whose
// keys sort by age stop at the first live record, and grants are listed a shard at a time.
import { RECORDS, SWEPT_KINDS } from "./records.ts";
import type { KeyValueStore } from "./store.ts";
import { SWEEP_BUDGET } from "../core/policy.ts";

interface SweepResult {
  examined: number;
  deleted: number;
  /** Every kind was swept to its end in this run (no cursor is left for the next one). */
  complete: boolean;
}

const AT_ONCE = 10;
/** The characters a record's id starts with (base64url: hashes, random ids, digits). */
export const SHARDS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

/** Where a run stopped: the kind, its shard, and (for kinds not in age order) the last key examined. */
interface SweepCursor {
  kind: "sweep-cursor";
  sweeping: string;
  shard?: number;
  after?: string;
}

type Kind = (typeof SWEPT_KINDS)[number];

/** Deletes the record if it has expired; true when it was live. */
async function sweepOne(store: KeyValueStore, kind: Kind, key: string, now: number): Promise<boolean> {
  const record = await store.get<Record<string, unknown>>(key);
  const expiresAt = record?.[kind.expiresField];
  // A record without a usable expiry is malformed: nothing reads it successfully, so it goes.
  if (typeof expiresAt === "number" && expiresAt > now) return true;
  await store.delete(key);
  return false;
}

/** The lists a kind is swept by: its shards, or the whole kind at once. */
const partsOf = (kind: Kind): string[] => (kind.sharded ? [...SHARDS].map((c) => `${kind.prefix}${c}`) : [kind.prefix]);

/** The part's keys in the order to sweep them, after the cursor's key if any. */
async function keysOf(store: KeyValueStore, kind: Kind, part: string, after: string | undefined): Promise<string[]> {
  const sorted = (await store.list(part)).sort();
  if (kind.oldestFirst === "descending") return sorted.reverse();
  if (kind.oldestFirst === "ascending" || after === undefined) return sorted;
  return sorted.filter((key) => key > after);
}

export async function sweepExpired(store: KeyValueStore, now: number, budget = SWEEP_BUDGET): Promise<SweepResult> {
  const result: SweepResult = { examined: 0, deleted: 0, complete: false };
  const cursor = await store.get<SweepCursor>(RECORDS.sweepCursor.key());
  const start = Math.max(
    0,
    SWEPT_KINDS.findIndex((kind) => kind.name === cursor?.sweeping),
  );
  for (let turn = 0; turn < SWEPT_KINDS.length; turn++) {
    const kind = SWEPT_KINDS[(start + turn) % SWEPT_KINDS.length]!;
    const resuming = turn === 0 && kind.name === cursor?.sweeping;
    const parts = partsOf(kind);
    for (let shard = resuming ? Math.min(cursor.shard ?? 0, parts.length - 1) : 0; shard < parts.length; shard++) {
      const keys = await keysOf(
        store,
        kind,
        parts[shard]!,
        resuming && shard === (cursor.shard ?? 0) ? cursor.after : undefined,
      );
      let done = 0;
      while (done < keys.length) {
        if (result.examined >= budget) {
          // A kind in age order starts again from its oldest record, which is where this run stopped.
          const after = kind.oldestFirst || done === 0 ? {} : { after: keys[done - 1]! };
          await store.set(RECORDS.sweepCursor.key(), {
            kind: "sweep-cursor",
            sweeping: kind.name,
            shard,
            ...after,
          } satisfies SweepCursor);
          return result;
        }
        const batch = keys.slice(done, done + Math.min(AT_ONCE, budget - result.examined));
        const live = await Promise.all(batch.map((key) => sweepOne(store, kind, key, now)));
        done += batch.length;
        result.examined += batch.length;
        result.deleted += live.filter((isLive) => !isLive).length;
        // Everything after a live record of a kind in age order is newer: live too.
        if (kind.oldestFirst && live.includes(true)) break;
      }
    }
  }
  if (cursor) await store.delete(RECORDS.sweepCursor.key());
  result.complete = true;
  return result;
}

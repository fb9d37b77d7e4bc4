// Bare @netlify/blobs calls on the bench's local server, no store module around them: the
// floor each endpoint's time is judged against.
import { getStore, type Store } from "@netlify/blobs";
import { withLocalWriteLock } from "../../netlify/lib/platform/local-write-lock.ts";
import type { OperationCounts } from "../../test/helpers/counting-store.ts";
import { range, sampleTimes, stats, timed, type Stats } from "./stats.ts";

/** `conditional`: a write-if-new as the store makes it on the local server, under its key's
 * lock (production's condition is part of its one write). */
export type BareKind = "get" | "set" | "conditional" | "delete" | "list";
export type BareOperations = Record<BareKind, Stats>;
export type BareSamples = Record<BareKind, number[]>;
export const BARE_KINDS: readonly BareKind[] = ["get", "set", "conditional", "delete", "list"];

export const emptySamples = (): BareSamples => ({ get: [], set: [], conditional: [], delete: [], list: [] });

/** Counted as the bench counts them: operations, and of the writes those conditional. */
export interface CountedOperations extends OperationCounts {
  conditionalWrites?: number;
}

/** Each paired conditional write creates a key of its own (a write-if-new to an existing key writes nothing). */
let conditionalKeys = 0;
const conditionalWrite = (blobs: Store, key: string, value: string) =>
  withLocalWriteLock(`bench-bare\u0000${key}`, new AbortController().signal, () => blobs.set(key, value, { onlyIfNew: true }));

export interface BareBlobs {
  blobs: Store;
  /** A record of a grant's real size. */
  value: string;
}

export async function bareBlobs(value: string): Promise<BareBlobs> {
  const blobs = getStore({ name: "bench-bare", consistency: "strong" });
  await blobs.set("bare/get", value);
  await Promise.all(range(10).map((i) => blobs.set(`bare/list/${i}`, value)));
  return { blobs, value };
}

/** The first thousand requests of a process run slower (JIT, connections): without this the
 * bare operations, measured first, would look slower than the endpoints measured after them. */
export async function warmUpBlobs({ blobs, value }: BareBlobs): Promise<void> {
  for (let i = 0; i < 1500; i++) {
    await blobs.set("warm-up", value);
    await blobs.get("warm-up", { type: "json" });
    if (i % 10 === 0) await blobs.list({ prefix: "bare/list/" });
  }
  await blobs.delete("warm-up");
}

export async function sampleBareOperations({ blobs, value }: BareBlobs, round: number): Promise<BareSamples> {
  return {
    get: await sampleTimes(() => blobs.get("bare/get", { type: "json" })),
    set: await sampleTimes((i) => blobs.set(`bare/set/${round}/${i}`, value)),
    conditional: await sampleTimes((i) => conditionalWrite(blobs, `bare/conditional/${round}/${i}`, value)),
    delete: await sampleTimes((i) => blobs.delete(`bare/set/${round}/${i}`)),
    list: await sampleTimes(() => blobs.list({ prefix: "bare/list/" })),
  };
}

/** One bare operation of each kind the call just did, right after it: the floor is measured
 * under the same load as the endpoint (on a shared machine, load moves minute to minute). */
export async function pairedBare({ blobs, value }: BareBlobs, ops: CountedOperations, i: number, into: BareSamples): Promise<void> {
  const key = `bare/paired/${i}`;
  if (ops.reads > 0) into.get.push(await timed(() => blobs.get("bare/get", { type: "json" })));
  if (ops.writes > 0 || ops.deletes > 0) {
    const elapsed = await timed(() => blobs.set(key, value));
    if (ops.writes > 0) into.set.push(elapsed);
  }
  if (ops.deletes > 0) into.delete.push(await timed(() => blobs.delete(key)));
  if ((ops.conditionalWrites ?? 0) > 0) into.conditional.push(await timed(() => conditionalWrite(blobs, `bare/paired-conditional/${++conditionalKeys}`, value)));
  if (ops.lists > 0) into.list.push(await timed(() => blobs.list({ prefix: "bare/list/" })));
}

export function pooledBare(rounds: readonly BareSamples[]): BareOperations {
  const pool = (kind: BareKind) => stats(rounds.flatMap((round) => round[kind]));
  return { get: pool("get"), set: pool("set"), conditional: pool("conditional"), delete: pool("delete"), list: pool("list") };
}

/** What the storage operations alone cost at p50, done one after another. */
export function storageFloor(ops: CountedOperations, p50: Record<BareKind, number>): number {
  const conditional = Math.min(ops.conditionalWrites ?? 0, ops.writes);
  return ops.reads * p50.get + (ops.writes - conditional) * p50.set + conditional * p50.conditional + ops.deletes * p50.delete + ops.lists * p50.list;
}

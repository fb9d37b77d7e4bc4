// Bare @netlify/blobs calls on the bench's local server, no store module around them: the
// floor each endpoint's time is judged against.
import { getStore, type Store } from "@netlify/blobs";
import { withLocalWriteLock } from "../../netlify/lib/platform/local-write-lock.ts";
import type { OperationShape, TracedOperation } from "../../test/helpers/counting-store.ts";
import { range, sampleTimes, stats, timed, type Stats } from "./stats.ts";

/** `conditional`: a write-if-new as the store makes it on the local server: under its key's
 * lock, a read, then a write (production's condition is part of its one write). */
export type BareKind = "get" | "set" | "conditional" | "delete" | "list";
export type BareOperations = Record<BareKind, Stats>;
export type BareSamples = Record<BareKind, number[]>;
export const BARE_KINDS: readonly BareKind[] = ["get", "set", "conditional", "delete", "list"];

/** Each replayed write creates a key of its own (a write-if-new to an existing key writes nothing). */
let conditionalKeys = 0;
const conditionalWrite = (blobs: Store, key: string, value: string) =>
  withLocalWriteLock(
    `bench-bare\u0000${key}`,
    new AbortController().signal,
    async () => (await blobs.get(key), blobs.set(key, value)),
  );

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

export function pooledBare(rounds: readonly BareSamples[]): BareOperations {
  const pool = (kind: BareKind) => stats(rounds.flatMap((round) => round[kind]));
  return {
    get: pool("get"),
    set: pool("set"),
    conditional: pool("conditional"),
    delete: pool("delete"),
    list: pool("list"),
  };
}

/** Replays a call's storage as bare operations of the same shapes, each begun when the ones
 * that settled before its original began have settled (those begun together run together),
 * right after the call: the floor measured, under the same load, with the local server serving
 * parallel requests as it served the endpoint's. Returns how long the replay took. */
export async function replayBare({ blobs, value }: BareBlobs, trace: readonly TracedOperation[]): Promise<number> {
  const ordered = [...trace].sort((a, b) => a.start - b.start);
  const key = () => `bare/replay/${++conditionalKeys}`;
  const run = (shape: OperationShape): Promise<unknown> => {
    switch (shape) {
      case "get":
        return blobs.get("bare/get", { type: "json" });
      case "set":
        return blobs.set(key(), value);
      case "conditional":
        return conditionalWrite(blobs, key(), value);
      case "versioned": {
        // As the store makes it locally: under the key's lock, the record read again, then written.
        const at = key();
        return withLocalWriteLock(
          `bench-bare\u0000${at}`,
          new AbortController().signal,
          async () => (await blobs.get(at), blobs.set(at, value)),
        );
      }
      case "delete":
        return blobs.delete(key());
      case "list":
        return blobs.list({ prefix: "bare/list/" });
    }
  };
  return timed(async () => {
    const done: Promise<unknown>[] = [];
    for (const op of ordered) {
      const before = ordered.filter((other) => other.end < op.start).map((other) => done[ordered.indexOf(other)]!);
      done.push(Promise.all(before).then(() => run(op.shape)));
    }
    await Promise.all(done);
  });
}

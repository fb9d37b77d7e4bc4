// An endpoint's storage on its critical path: of the operations one request made (traced by
// test/helpers/counting-store.ts), the longest chain in which each began only after the one
// before it had settled. Operations begun together (a grant and the revocations, read at
// once) sit side by side in no chain: on Netlify each operation is a round trip, and the
// chain is the round trips a request waits for one after another. The floor an endpoint is
// judged against replays the same shape bare (bare-blobs.ts replayBare).
import type { OperationCounts, OperationShape, TracedOperation } from "../../test/helpers/counting-store.ts";

/** Round trips in sequence: the most operations in one chain (each operation one more than the
 * longest chain that settled before it began). */
export function roundTrips(trace: readonly TracedOperation[]): number {
  const ordered = [...trace].sort((a, b) => a.start - b.start);
  const best: number[] = [];
  let heaviest = 0;
  for (const [i, op] of ordered.entries()) {
    let before = 0;
    for (let j = 0; j < i; j++) if (ordered[j]!.end < op.start) before = Math.max(before, best[j]!);
    best.push(before + 1);
    heaviest = Math.max(heaviest, best[i]!);
  }
  return heaviest;
}

/** The operations of a trace by kind, and of the writes those conditional (the request's own: what the answer waited for). */
export function countsOf(trace: readonly TracedOperation[]): OperationCounts & { conditionalWrites: number } {
  const of = (...shapes: OperationShape[]) => trace.filter((op) => shapes.includes(op.shape)).length;
  return {
    reads: of("get"),
    writes: of("set", "conditional", "versioned"),
    deletes: of("delete"),
    lists: of("list"),
    conditionalWrites: of("conditional", "versioned"),
  };
}

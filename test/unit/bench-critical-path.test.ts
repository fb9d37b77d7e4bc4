// The bench's round trips in sequence (scripts/bench/critical-path.ts): operations begun
// together are one round trip; one begun after another settled is one more.
import { describe, expect, it } from "vitest";
import { countsOf, roundTrips } from "../../scripts/bench/critical-path.ts";
import type { OperationShape, TracedOperation } from "../helpers/counting-store.ts";

const op = (shape: OperationShape, start: number, end: number): TracedOperation => ({ shape, start, end });

describe("round trips in sequence", () => {
  it("are none for no storage, one for operations begun together", () => {
    expect(roundTrips([])).toBe(0);
    // A grant and the revocations, read at once (a token check).
    expect(roundTrips([op("get", 1, 3), op("get", 2, 4)])).toBe(1);
  });

  it("count each operation begun after another settled", () => {
    // The code read; then its used-up marker; then the grant and its app's change at once.
    const redemption = [op("get", 1, 2), op("conditional", 3, 4), op("conditional", 5, 7), op("conditional", 6, 8)];
    expect(roundTrips(redemption)).toBe(3);
    expect(countsOf(redemption)).toEqual({ reads: 1, writes: 3, deletes: 0, lists: 0, conditionalWrites: 3 });
  });

  it("follow the longest chain, not the number of operations", () => {
    // Three reads at once, the longest settling last; a write after the first two only still
    // waits for one round trip before it.
    expect(roundTrips([op("get", 1, 3), op("get", 2, 4), op("get", 5, 9), op("set", 6, 7)])).toBe(2);
    expect(roundTrips([op("get", 1, 2), op("get", 3, 4), op("get", 5, 6), op("versioned", 7, 8)])).toBe(4);
  });
});

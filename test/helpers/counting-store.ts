// Counts storage operations per kind by wrapping the store the handlers get: the bench's
// storage budget (reads per token check, operations per code redemption) is judged on these.
// Production code counts nothing. No vitest here.
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";

export type OperationKind = "reads" | "writes" | "deletes" | "lists";
export type OperationCounts = Record<OperationKind, number>;
export const OPERATION_KINDS: readonly OperationKind[] = ["reads", "writes", "deletes", "lists"];

export const noOperations = (): OperationCounts => ({ reads: 0, writes: 0, deletes: 0, lists: 0 });

/** What one operation was, as a Blobs request: a write-if-new and a write against a version
 * apart from a plain write (on the local server the last also reads the record again). */
export type OperationShape = "get" | "set" | "conditional" | "versioned" | "delete" | "list";

/** One operation of a request: its shape, and when it began and settled, as positions in one
 * sequence of events (an operation begun after another settled depended on it, or could have). */
export interface TracedOperation {
  shape: OperationShape;
  /** The key (or the prefix listed). */
  key?: string;
  start: number;
  end: number;
}

/** One tally, shared by every store it wraps (one request at a time is measured). */
export class OperationCounter {
  counts: OperationCounts = noOperations();
  /** Conditional writes against a version (setIfUnchanged). On the local Blobs server each
   * also reads the record again under its key's lock (platform/store.ts), which production's
   * atomic conditional write does not: the bench adds that read to the floor it judges by. */
  versionedWrites = 0;
  /** Conditional writes (setIfNew, setIfUnchanged). On the local Blobs server each holds its
   * key's lock (platform/local-write-lock.ts: a folder made and removed) and reads the record
   * first, where production's condition is part of the one write: the bench's floor times them
   * as such. */
  conditionalWrites = 0;
  /** Every operation since the last reset, in the order they began. */
  trace: TracedOperation[] = [];
  private events = 0;

  reset(): void {
    this.counts = noOperations();
    this.versionedWrites = 0;
    this.conditionalWrites = 0;
    this.trace = [];
  }

  /** The operations settled so far (copies): one in flight when a request answered was not
   * waited for (work handed over for after the answer). */
  settled(): TracedOperation[] {
    return this.trace.filter((op) => Number.isFinite(op.end)).map((op) => ({ ...op }));
  }

  /** Records when `operation` begins and when it settles. */
  private traced<T>(shape: OperationShape, key: string, operation: () => Promise<T>): Promise<T> {
    const entry: TracedOperation = { shape, key, start: ++this.events, end: Number.POSITIVE_INFINITY };
    this.trace.push(entry);
    return operation().finally(() => void (entry.end = ++this.events));
  }

  /** A copy of the counts so far. */
  snapshot(): OperationCounts {
    return { ...this.counts };
  }

  /** The same store, each operation counted before it runs (a failed one counts too). */
  wrap(inner: KeyValueStore): KeyValueStore {
    const count = (kind: OperationKind) => void this.counts[kind]++;
    return {
      get: (key) => (count("reads"), this.traced("get", key, () => inner.get(key))),
      getVersioned: (key) => (count("reads"), this.traced("get", key, () => inner.getVersioned(key))),
      set: (key, value) => (count("writes"), this.traced("set", key, () => inner.set(key, value))),
      setIfNew: (key, value) => (
        count("writes"),
        this.conditionalWrites++,
        this.traced("conditional", key, () => inner.setIfNew(key, value))
      ),
      setIfUnchanged: (key, value, version) => (
        count("writes"),
        this.conditionalWrites++,
        version.exists && this.versionedWrites++,
        this.traced(version.exists ? "versioned" : "conditional", key, () => inner.setIfUnchanged(key, value, version))
      ),
      delete: (key) => (count("deletes"), this.traced("delete", key, () => inner.delete(key))),
      list: (prefix) => (count("lists"), this.traced("list", prefix, () => inner.list(prefix))),
    };
  }
}

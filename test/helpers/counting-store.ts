// Counts storage operations per kind by wrapping the store the handlers get: the bench's
// storage budget (reads per token check, operations per code redemption) is judged on these.
// Production code counts nothing. No vitest here.
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";

export type OperationKind = "reads" | "writes" | "deletes" | "lists";
export type OperationCounts = Record<OperationKind, number>;
export const OPERATION_KINDS: readonly OperationKind[] = ["reads", "writes", "deletes", "lists"];

export const noOperations = (): OperationCounts => ({ reads: 0, writes: 0, deletes: 0, lists: 0 });

/** One tally, shared by every store it wraps (one request at a time is measured). */
export class OperationCounter {
  counts: OperationCounts = noOperations();
  /** Conditional writes against a version (setIfUnchanged). On the local Blobs server each
   * also reads the record again under its key's lock (platform/store.ts), which production's
   * atomic conditional write does not: the bench adds that read to the floor it judges by. */
  versionedWrites = 0;
  /** Conditional writes (setIfNew, setIfUnchanged). On the local Blobs server each holds its
   * key's lock (platform/local-write-lock.ts: a folder made and removed), where production's
   * condition is part of the one write: the bench's floor times them as such. */
  conditionalWrites = 0;

  reset(): void {
    this.counts = noOperations();
    this.versionedWrites = 0;
    this.conditionalWrites = 0;
  }

  /** A copy of the counts so far. */
  snapshot(): OperationCounts {
    return { ...this.counts };
  }

  /** The same store, each operation counted before it runs (a failed one counts too). */
  wrap(inner: KeyValueStore): KeyValueStore {
    const count = (kind: OperationKind) => void this.counts[kind]++;
    return {
      get: (key) => (count("reads"), inner.get(key)),
      getVersioned: (key) => (count("reads"), inner.getVersioned(key)),
      set: (key, value) => (count("writes"), inner.set(key, value)),
      setIfNew: (key, value) => (count("writes"), this.conditionalWrites++, inner.setIfNew(key, value)),
      setIfUnchanged: (key, value, version) => (count("writes"), this.conditionalWrites++, version.exists && this.versionedWrites++, inner.setIfUnchanged(key, value, version)),
      delete: (key) => (count("deletes"), inner.delete(key)),
      list: (prefix) => (count("lists"), inner.list(prefix)),
    };
  }
}

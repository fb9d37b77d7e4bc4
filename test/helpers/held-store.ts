// Orders a race deterministically: a store wrapper that holds one chosen operation (the next
// one of its kind on its key) until the test releases it, so that a test can run another
// request to completion in between, at exactly the moment a real race would. "before": the
// operation waits, then runs; "after": it runs (a read sees the store as it is now), then its
// answer waits. No timers: the test awaits `reached`, does its interleaving, then `release()`.
// No vitest here.
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";

type Operation = keyof KeyValueStore;

export interface Hold {
  /** Resolves when the held operation has been called (and, for "after", has run). */
  reached: Promise<void>;
  release(): void;
}

/** A key exactly, or every key under a prefix (for a key the test cannot name ahead). */
type KeyMatch = string | { prefix: string };

interface Pending {
  operation: Operation;
  key: KeyMatch;
  when: "before" | "after";
  arrived: () => void;
  gate: Promise<void>;
}

export interface HeldStore {
  store: KeyValueStore;
  /** Holds the next `operation` on `key` (list: on that prefix), or on any key under
   * `{ prefix }`, once. */
  hold(operation: Operation, key: KeyMatch, when: "before" | "after"): Hold;
}

export function heldStore(inner: KeyValueStore): HeldStore {
  const pending: Pending[] = [];

  /** Runs one operation, through the hold that matches it if there is one. */
  async function run<T>(operation: Operation, key: string, work: () => Promise<T>): Promise<T> {
    const matches = (match: KeyMatch) => (typeof match === "string" ? match === key : key.startsWith(match.prefix));
    const index = pending.findIndex((p) => p.operation === operation && matches(p.key));
    if (index < 0) return work();
    const [hold] = pending.splice(index, 1) as [Pending];
    if (hold.when === "before") {
      hold.arrived();
      await hold.gate;
      return work();
    }
    const result = await work();
    hold.arrived();
    await hold.gate;
    return result;
  }

  const store: KeyValueStore = {
    get: (key) => run("get", key, () => inner.get(key)),
    getVersioned: (key) => run("getVersioned", key, () => inner.getVersioned(key)),
    set: (key, value) => run("set", key, () => inner.set(key, value)),
    setIfNew: (key, value) => run("setIfNew", key, () => inner.setIfNew(key, value)),
    setIfUnchanged: (key, value, version) =>
      run("setIfUnchanged", key, () => inner.setIfUnchanged(key, value, version)),
    delete: (key) => run("delete", key, () => inner.delete(key)),
    list: (prefix) => run("list", prefix, () => inner.list(prefix)),
  };

  return {
    store,
    hold(operation, key, when) {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      pending.push({ operation, key, when, arrived, gate });
      return { reached, release };
    },
  };
}

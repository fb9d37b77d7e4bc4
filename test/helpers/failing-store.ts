// A store that fails one chosen operation: the nth from when it is armed (counted from 1),
// either before it reaches storage ("before": nothing happens) or after ("after": it is done,
// but its answer is lost on the way back, as when a connection drops). It throws what the real
// store throws then (StorageUnavailable). Every operation it passes is noted, so that a test
// can count a request's steps and then fail each in turn. No vitest here.
import { StorageUnavailable, type KeyValueStore } from "../../netlify/lib/platform/store.ts";

export type FailureTiming = "before" | "after";

export interface FailingStore {
  store: KeyValueStore;
  /** Fails the nth operation from now; 0 fails none (only notes them). */
  arm(nth: number, timing: FailureTiming): void;
  /** The operations since it was last armed, as "kind key". */
  operations: string[];
}

export function failingStore(inner: KeyValueStore): FailingStore {
  let target = 0;
  let timing: FailureTiming = "before";
  const failing: FailingStore = {
    store: undefined as unknown as KeyValueStore,
    arm(nth, when) {
      target = nth;
      timing = when;
      failing.operations = [];
    },
    operations: [],
  };
  const step = async <T>(kind: string, key: string, work: () => Promise<T>): Promise<T> => {
    failing.operations.push(`${kind} ${key}`);
    if (failing.operations.length !== target) return work();
    if (timing === "before") throw new StorageUnavailable(kind, new Error("injected fault"));
    await work();
    throw new StorageUnavailable(kind, new Error("injected fault: the answer was lost"));
  };
  failing.store = {
    get: (key) => step("get", key, () => inner.get(key)),
    getVersioned: (key) => step("getVersioned", key, () => inner.getVersioned(key)),
    set: (key, value) => step("set", key, () => inner.set(key, value)),
    setIfNew: (key, value) => step("setIfNew", key, () => inner.setIfNew(key, value)),
    setIfUnchanged: (key, value, version) =>
      step("setIfUnchanged", key, () => inner.setIfUnchanged(key, value, version)),
    delete: (key) => step("delete", key, () => inner.delete(key)),
    list: (prefix) => step("list", prefix, () => inner.list(prefix)),
  };
  return failing;
}

// A store whose every operation takes `ms` longer, half on the way to storage and half on the
// way back, as a network round trip does (on Netlify, Blobs is another machine). For bursts: the
// longer each operation, the wider the window in which requests writing one record meet. No
// vitest here.
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function slowStore(inner: KeyValueStore, ms: number): KeyValueStore {
  const slow = async <T>(work: () => Promise<T>): Promise<T> => {
    await pause(ms / 2);
    try {
      return await work();
    } finally {
      await pause(ms / 2);
    }
  };
  return {
    get: (key) => slow(() => inner.get(key)),
    getVersioned: (key) => slow(() => inner.getVersioned(key)),
    set: (key, value) => slow(() => inner.set(key, value)),
    setIfNew: (key, value) => slow(() => inner.setIfNew(key, value)),
    setIfUnchanged: (key, value, version) => slow(() => inner.setIfUnchanged(key, value, version)),
    delete: (key) => slow(() => inner.delete(key)),
    list: (prefix) => slow(() => inner.list(prefix)),
  };
}

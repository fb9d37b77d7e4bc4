// Conditional replacement as production Blobs does it (onlyIfMatch on an etag), for tests that
// race many writers on one record within this process.
//
// The local Blobs server gives no etag when a record is read (the store compares content hashes
// there instead: platform/store.ts); production Blobs compares etags. This wrapper keeps a version per key for every write that goes through it, hands it out as the
// etag of getVersioned, and lets setIfUnchanged write only while that version still stands,
// each key's writes in turn. All writers must share the wrapper (two runtimes: one wrapper).
import type { KeyValueStore, Version } from "../../netlify/lib/platform/store.ts";

export function withVersionedWrites(store: KeyValueStore): KeyValueStore {
  const versions = new Map<string, number>();
  const queues = new Map<string, Promise<unknown>>();
  const inTurn = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const result = (queues.get(key) ?? Promise.resolve()).then(work, work);
    queues.set(
      key,
      result.catch(() => undefined),
    );
    return result;
  };
  const bump = (key: string) => versions.set(key, (versions.get(key) ?? 0) + 1);
  const tag = (key: string) => `"v${versions.get(key) ?? 0}"`;
  return {
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    async getVersioned<T>(key: string) {
      // Read in turn with the writes, so that the version handed out is the value's.
      return inTurn(key, async () => {
        const { value } = await store.getVersioned<T>(key);
        const version: Version = value === null ? { exists: false } : { exists: true, etag: tag(key) };
        return { value, version };
      });
    },
    set: (key, value) => inTurn(key, async () => (await store.set(key, value), bump(key))).then(() => undefined),
    setIfNew: (key, value) =>
      inTurn(key, async () => {
        const written = await store.setIfNew(key, value);
        if (written) bump(key);
        return written;
      }),
    setIfUnchanged: (key, value, version) =>
      inTurn(key, async () => {
        if (!version.exists) {
          const written = await store.setIfNew(key, value);
          if (written) bump(key);
          return written;
        }
        if (version.etag !== tag(key)) return false;
        // The wrapper's version stands: replace the record as the inner store read it now.
        const current = await store.getVersioned(key);
        if (current.value === null || !(await store.setIfUnchanged(key, value, current.version))) return false;
        bump(key);
        return true;
      }),
    delete: (key) => inTurn(key, async () => (await store.delete(key), bump(key))).then(() => undefined),
  };
}

// Blobs has no TTL: every record that expires carries its expiry, and this sweep (run daily by a
// scheduled function) deletes what has expired, kind by kind as records.ts declares them.
// Readers check expiry themselves, so a late sweep is only a matter of space, never of security.
import { SWEPT_KINDS } from "./records.ts";
import type { KeyValueStore } from "./store.ts";

interface SweepResult {
  examined: number;
  deleted: number;
}

export async function sweepExpired(store: KeyValueStore, now: number): Promise<SweepResult> {
  const result: SweepResult = { examined: 0, deleted: 0 };
  for (const kind of SWEPT_KINDS) {
    for (const key of await store.list(kind.prefix)) {
      result.examined++;
      const record = await store.get<Record<string, unknown>>(key);
      const expiresAt = record?.[kind.expiresField];
      // A record without a usable expiry is malformed: nothing reads it successfully, so it goes.
      if (typeof expiresAt !== "number" || expiresAt <= now) {
        await store.delete(key);
        result.deleted++;
      }
    }
  }
  return result;
}

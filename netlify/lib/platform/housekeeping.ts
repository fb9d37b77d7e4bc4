// Blobs has no TTL: every record carries `expiresAt`, and this sweep (run daily by a scheduled
// function) deletes what has expired. Readers check expiry themselves, so a late sweep is
// only a matter of space, never of security.
import type { KeyValueStore } from "./store.ts";

/** Every prefix under which records with an `expiresAt` live. */
export const EXPIRING_PREFIXES = ["codes/", "used-codes/", "grants/", "usage/", "throttle/", "sessions/", "events/", "webauthn-used/"] as const;

export interface SweepResult {
  examined: number;
  deleted: number;
}

export async function sweepExpired(store: KeyValueStore, now: number): Promise<SweepResult> {
  const result: SweepResult = { examined: 0, deleted: 0 };
  for (const prefix of EXPIRING_PREFIXES) {
    for (const key of await store.list(prefix)) {
      result.examined++;
      const record = await store.get<{ expiresAt?: unknown }>(key);
      // A record without a usable expiry is malformed: nothing reads it successfully, so it goes.
      if (record === null || typeof record.expiresAt !== "number" || record.expiresAt <= now) {
        await store.delete(key);
        result.deleted++;
      }
    }
  }
  return result;
}

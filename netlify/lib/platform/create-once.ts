// A create-if-new write whose refusal may be its own. The Blobs client retries a write whose
// answer was lost (a dropped connection) after it landed; the retry is then refused by the
// write itself (412), and the client reports "not written". For a record no other writer could
// have written the same (it holds a fresh random id or secret), the record as stored then tells
// which it was.
import type { KeyValueStore } from "./store.ts";

/** Creates `key` with `value` if it does not exist. True when this call's write is the stored
 * record: written now, or written before its answer was lost (`isThisWrite` recognises it by
 * what only this writer holds, compared in constant time where it is a secret). */
export async function createOnce<T>(
  store: KeyValueStore,
  key: string,
  value: T,
  isThisWrite: (stored: T) => boolean,
): Promise<boolean> {
  let failure: { error: unknown } | null = null;
  try {
    if (await store.setIfNew(key, value)) return true;
  } catch (error) {
    failure = { error };
  }
  const stored = await store.get<T>(key).catch(() => null);
  if (stored !== null && isThisWrite(stored)) return true;
  if (failure !== null) throw failure.error;
  return false;
}

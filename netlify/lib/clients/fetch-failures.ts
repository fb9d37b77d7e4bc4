// A client whose page could not be fetched (too slow, refused by the address guard, failing)
// is not fetched again for a minute: per origin, so that a query string or another path does
// not get round it, and in Blobs, so that every function instance knows. Otherwise a page that
// drips one byte a second holds every GET /auth naming it for the whole fetch budget, and a
// new query string each time defeats the document cache. The records sit in a fixed number of
// slots chosen by the origin's hash (platform/records.ts): a flood of origins overwrites slots,
// never adds records past that ceiling; a collision only forgets a failure. This is a cache:
// when storage does not answer, it is as if nothing were remembered.
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";

/** How long a failure is remembered. */
export const FAILURE_TTL_MS = 60 * 1000;

interface ClientFailure {
  kind: "client-failure";
  origin: string;
  expiresAt: number;
}

export interface FetchFailures {
  /** Whether fetching a page of this origin failed within the last minute. */
  failedRecently(origin: string, now: number): Promise<boolean>;
  remember(origin: string, now: number): Promise<void>;
}

export function storedFetchFailures(store: KeyValueStore): FetchFailures {
  return {
    async failedRecently(origin, now) {
      try {
        const record = await store.get<ClientFailure>(RECORDS.clientFailure.key(origin));
        return record?.kind === "client-failure" && record.origin === origin && record.expiresAt > now;
      } catch {
        return false;
      }
    },
    async remember(origin, now) {
      const record: ClientFailure = { kind: "client-failure", origin, expiresAt: now + FAILURE_TTL_MS };
      try {
        await store.set(RECORDS.clientFailure.key(origin), record);
      } catch {
        // Not remembered: the next request fetches again, within the same budget.
      }
    },
  };
}

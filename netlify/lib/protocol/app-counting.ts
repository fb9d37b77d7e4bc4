// How a grant's creation, refresh or revocation reaches its app's summary: a change recorded
// and folded in (app-changes.ts, app-summary-fold.ts), after the answer where the platform
// allows, and never at the cost of the request: the grant's own write is what counts.
import { afterAnswer, type WaitUntil } from "../platform/after-answer.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { changeId, recordChange, type AppChange, type ChangeEvent } from "./app-changes.ts";
import { foldChanges } from "./app-summary-fold.ts";
import { appIdOf } from "./revocations.ts";

/** Records a change of the grant's app and folds it into the app's summary: after the answer
 * where the platform allows. Never fails the request: the grant's own write is what counts
 * (a change lost costs the count, until the grant's expiry day; it is logged). */
export async function countChange(
  store: KeyValueStore,
  event: ChangeEvent,
  change: AppChange,
  now: number,
  recorded?: Promise<boolean>,
): Promise<void> {
  await (recorded ?? recordChange(store, event, change));
  await foldChanges(store, appIdOf(change.clientId), now, { id: changeId(change.grantId, event), change });
}

/** A summary update after the grant's own write: a failure there must not lose the client
 * its tokens (the count is off by one until the grant's expiry day passes), so it is logged.
 * Given the platform's waitUntil, it starts once the answer is on its way (a turn of the event
 * loop later): the client waits only for the grant. Else it is awaited. */
export function afterward(what: string, work: () => Promise<void>, waitUntil?: WaitUntil): Promise<void> {
  const started = waitUntil ? new Promise<void>((resolve) => setImmediate(resolve)).then(work) : work();
  const logged = started.catch((error: unknown) => console.error(`could not ${what} in its app's summary:`, error));
  return afterAnswer(waitUntil, logged);
}

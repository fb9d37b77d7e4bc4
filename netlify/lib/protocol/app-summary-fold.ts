// Folding an app's changes (app-changes.ts) into its summary, after each change is written
// (after the answer where the platform allows), in the hourly housekeeping and after a console
// load; and reading a summary with the changes not yet folded. Never counted twice, never for a
// grant not stored: see docs/data-model.md, "One app's burst".
import { randomUUID } from "node:crypto";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { MINUTE } from "../core/time.ts";
import { appIdOf, readRevocations, revokedByOwner, type Revocations } from "./revocations.ts";
import { applyChanges, summaryOf, withExpiry, type AppSummary } from "./app-summaries.ts";
import {
  changeId,
  changeKey,
  grantIdOfChange,
  isCreation,
  listChanges,
  recordChange,
  type AppChange,
  type ChangeEvent,
} from "./app-changes.ts";
import { afterAnswer, type WaitUntil } from "../platform/after-answer.ts";

/** Rounds of one fold: a request that folds a burst folds FOLD_BATCH changes a round. */
const FOLD_ROUNDS = 20;
const FIRST_BATCH = 4;
const FOLD_BATCH = 100;
/** How long a fold's mark keeps others off (a request stopped while folding holds it no longer). */
const FOLDING_MS = 20 * 1000;
/** How long a folded change's id stays in the summary after its record is gone. */
const FOLDED_KEPT_MS = 10 * MINUTE;
/** A creation whose grant is not stored waits this long past its writableUntil (a slow write). */
const LATE_WRITE_MS = MINUTE;
/** Changes a reader applies per app; more wait for the next fold (folds run after each write). */
const PENDING_READ = 100;

/** A change this request wrote itself: not read again, and its grant known to be stored. */
interface OwnChange {
  id: string;
  change: AppChange;
}

/** The ids listed that the summary has not counted yet. */
function notFolded(summary: AppSummary | null, listed: readonly string[]): string[] {
  const folded = summary?.folded ?? {};
  return listed.filter((id) => folded[id] === undefined);
}

/** A change as stored: "gone" (deleted since it was listed), "bad" (not a change of this app). */
async function readStored(store: KeyValueStore, appId: string, id: string): Promise<AppChange | "gone" | "bad"> {
  const change = await store.get<AppChange>(changeKey(appId, id));
  if (change?.kind !== "app-change") return change === null ? "gone" : "bad";
  return appIdOf(change.clientId) === appId && change.grantId === grantIdOfChange(id) ? change : "bad";
}

type Verdict = "count" | "wait" | "drop";

/** Whether a creation's grant is stored (a grant, revoked or not, counts: its revocation is a change of its own). */
async function creationVerdict(store: KeyValueStore, change: AppChange, now: number): Promise<Verdict> {
  const grant = await store.get<{ kind?: unknown }>(RECORDS.grant.key(change.grantId));
  if (grant?.kind === "grant") return "count";
  if (grant === null && now <= (change.created?.writableUntil ?? 0) + LATE_WRITE_MS) return "wait";
  return "drop";
}

interface Sorted {
  count: { id: string; change: AppChange }[];
  drop: string[];
  /** Creations whose grant is not stored yet (or deleted since they were listed). */
  wait: string[];
}

/** Reads the waiting changes (after the summary: see the top) and sorts them out. */
async function sortOut(
  store: KeyValueStore,
  appId: string,
  ids: readonly string[],
  revocations: Revocations,
  now: number,
  own?: OwnChange,
): Promise<Sorted> {
  const judged = await Promise.all(
    ids.map(async (id) => {
      const change = own?.id === id ? own.change : await readStored(store, appId, id);
      if (change === "gone") return { id, verdict: "wait" as const };
      if (change === "bad" || revokedByOwner(revocations, change.clientId, change.grantCreatedAt))
        return { id, verdict: "drop" as const };
      const verdict = isCreation(id) && own?.id !== id ? await creationVerdict(store, change, now) : "count";
      return { id, change, verdict };
    }),
  );
  return {
    count: judged.flatMap((j) => (j.verdict === "count" ? [{ id: j.id, change: j.change }] : [])),
    drop: judged.filter((j) => j.verdict === "drop").map((j) => j.id),
    wait: judged.filter((j) => j.verdict === "wait").map((j) => j.id),
  };
}

async function deleteQuietly(store: KeyValueStore, appId: string, ids: readonly string[]): Promise<void> {
  // A deletion that fails leaves a record the summary still lists: skipped, and tried again.
  await Promise.all(ids.map((id) => store.delete(changeKey(appId, id)).catch(() => undefined)));
}

/** The summary, the owner's revocations and the app's changes, in one round trip. */
async function look(store: KeyValueStore, appId: string) {
  const [{ value, version }, revocations, listed] = await Promise.all([
    store.getVersioned<AppSummary>(RECORDS.appSummary.key(appId)),
    readRevocations(store),
    listChanges(store, appId).then((byApp) => byApp.get(appId) ?? []),
  ]);
  return { summary: summaryOf(value, appId), version, revocations, listed };
}

/** The summary as written next: its counts, the ids it folded, and who is folding it (if anyone). */
function nextSummary(
  summary: AppSummary,
  listed: readonly string[],
  counted: readonly string[],
  folding: AppSummary["folding"],
  now: number,
): AppSummary {
  const kept = Object.entries(summary.folded ?? {}).filter(
    ([id, at]) => listed.includes(id) || at > now - FOLDED_KEPT_MS,
  );
  const { folding: _previous, ...rest } = summary;
  const folded = { ...Object.fromEntries(kept), ...Object.fromEntries(counted.map((id) => [id, now])) };
  return withExpiry({ ...rest, folded, ...(folding ? { folding } : {}) });
}

/** Folds the app's waiting changes into its summary. With `own` (the change this request wrote):
 * only while that change waits. A burst's changes are folded by one request: the first fold
 * that finds more waiting than it takes marks the summary as its own to fold (`folding`), and
 * goes on until none is left; the others, finding the mark, leave theirs to it. It looks once
 * more after removing the mark, so that a change whose writer found the mark is never left. */
export async function foldChanges(store: KeyValueStore, appId: string, now: number, own?: OwnChange): Promise<void> {
  const me = randomUUID();
  const key = RECORDS.appSummary.key(appId);
  const unready = new Set<string>(); // creations whose grant is not stored yet
  let ownWaiting = own; // until folded: then only a fold's last look goes on
  for (let round = 0, lost = 0; round < FOLD_ROUNDS; round++) {
    if (lost > 0) await collisionPause(lost + 2);
    const { summary, version, revocations, listed } = await look(store, appId);
    const mine = summary?.folding?.by === me;
    const waiting = notFolded(summary, listed).filter((id) => !unready.has(id));
    const ownId = ownWaiting?.id;
    if (
      !mine &&
      ((ownId !== undefined && !waiting.includes(ownId)) ||
        waiting.length === 0 ||
        (summary?.folding?.until ?? 0) > now)
    )
      return;
    const batch = (ownId !== undefined ? [ownId, ...waiting.filter((id) => id !== ownId)] : waiting).slice(
      0,
      mine ? FOLD_BATCH : FIRST_BATCH,
    );
    const { count, drop, wait } = await sortOut(store, appId, batch, revocations, now, ownWaiting);
    for (const id of wait) unready.add(id);
    const counted = count.map((c) => c.id);
    const changes = count.map((c) => c.change);
    const next = changes.length > 0 ? applyChanges(summary, changes) : summary;
    const more = waiting.length > batch.length;
    if (next === null || (changes.length === 0 && !more && !mine)) {
      await deleteQuietly(store, appId, drop);
      if (!mine) return;
      if (next === null) continue;
    }
    const folding = more ? { by: me, until: now + FOLDING_MS } : undefined;
    if (!(await store.setIfUnchanged(key, nextSummary(next, listed, counted, folding, now), version))) {
      lost++;
      continue;
    }
    lost = 0;
    const leftover = Object.keys(summary?.folded ?? {}).filter((id) => listed.includes(id));
    await deleteQuietly(store, appId, [...counted, ...drop, ...leftover]);
    if (ownId !== undefined && counted.includes(ownId)) ownWaiting = undefined;
    if (folding) continue;
    // Its mark removed: a fold looks once more (see above), the unready ones included.
    if (!mine) return;
    unready.clear();
  }
}

/** Folds what waits for every app (the housekeeping's share, `atMost` apps a run); an app whose
 * fold fails is logged and left to the next run. */
export async function foldAllChanges(store: KeyValueStore, now: number, atMost = 20): Promise<number> {
  const apps = [...(await listChanges(store)).keys()].slice(0, atMost);
  for (const appId of apps)
    await foldChanges(store, appId, now).catch((error: unknown) => console.error("folding app changes:", error));
  return apps.length;
}

/** An app's summary as it stands: as stored (read after the changes were listed), with the
 * listed changes it has not folded applied (at most PENDING_READ; a creation counts before a
 * fold has checked its grant: it was just written). A change deleted since it was listed was
 * folded into a later summary than the one read: that one is read, and the sum made again. */
export async function withWaitingChanges(
  store: KeyValueStore,
  appId: string,
  stored: AppSummary | null,
  listed: readonly string[],
  revocations: Revocations,
): Promise<AppSummary | null> {
  let summary = summaryOf(stored, appId);
  for (let attempt = 0; ; attempt++) {
    const waiting = notFolded(summary, listed).slice(0, PENDING_READ);
    if (waiting.length === 0) return summary;
    const read = await Promise.all(waiting.map((id) => readStored(store, appId, id)));
    const changes = read.filter(
      (c): c is AppChange => typeof c === "object" && !revokedByOwner(revocations, c.clientId, c.grantCreatedAt),
    );
    if (!read.includes("gone") || attempt === 2) return applyChanges(summary, changes);
    summary = summaryOf(await store.get<AppSummary>(RECORDS.appSummary.key(appId)), appId);
  }
}

/** Records a change of the grant's app and folds it into the app's summary. */
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

// One summary record per app, so that the owner's console reads one record per app however many
// grants it holds; live grants counted by their expiry day, so an expired one leaves on its own.
// Requests write changes (app-changes.ts) that are folded in afterwards (app-summary-fold.ts):
// this module is the summary and the arithmetic of applying them. See docs/data-model.md.
import type { ClientDisplay } from "../core/client-shape.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { appIdOf } from "./revocations.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { creationOf, type AppChange, type ChangedGrant } from "./app-changes.ts";
import { countScopes, daysAhead, type HeldScopes } from "./held-scopes.ts";
import { DAY, dayOf } from "../core/time.ts";

export interface AppSummary extends HeldScopes {
  kind: "app-summary";
  clientId: string;
  /** The app's name and logo as it claimed them at its latest sign-in. */
  client?: ClientDisplay;
  /** Its first grant still counted, and its latest. */
  firstUsedAt: number;
  lastGrantAt: number;
  /** Its latest grant or refresh (verifications are in the app's usage record). */
  lastUsedAt: number;
  /** Live grants, by the day (since the epoch) their expiry falls on. */
  liveByDay: Record<string, number>;
  /** The changes folded in lately (their ids, and when), whose records may not be deleted yet:
   * a change listed here is never counted again (app-summary-fold.ts). */
  folded?: Record<string, number>;
  /** A fold of many changes under way: the request folding them, and until when at most. */
  folding?: { by: string; until: number };
  expiresAt: number;
}

export function summaryOf(value: AppSummary | null, appId: string): AppSummary | null {
  return value?.kind === "app-summary" && appIdOf(value.clientId) === appId ? value : null;
}

/** The summary with its expiry: swept once the day its last grant expires on has passed. */
export function withExpiry(summary: AppSummary): AppSummary {
  const last = Math.max(0, ...Object.keys(summary.liveByDay).map(Number));
  return { ...summary, expiresAt: Math.max(summary.lastUsedAt, (last + 1) * DAY) };
}

function counted(liveByDay: Record<string, number>, at: number, by: number): Record<string, number> {
  const day = String(dayOf(at));
  const next = { ...liveByDay, [day]: (liveByDay[day] ?? 0) + by };
  if (next[day]! <= 0) delete next[day];
  return next;
}

/** A new grant counted: the app as its newest grant shows it. */
function applyCreation(
  current: AppSummary | null,
  change: AppChange & { created: NonNullable<AppChange["created"]> },
): AppSummary {
  const at = change.grantCreatedAt;
  const { client, scopes } = change.created;
  const base: AppSummary = current ?? {
    kind: "app-summary",
    clientId: change.clientId,
    firstUsedAt: at,
    lastGrantAt: at,
    lastUsedAt: change.at,
    liveByDay: {},
    heldScopes: {},
    expiresAt: 0,
  };
  const next: AppSummary = {
    ...base,
    firstUsedAt: Math.min(base.firstUsedAt, at),
    lastGrantAt: Math.max(base.lastGrantAt, at),
    lastUsedAt: Math.max(base.lastUsedAt, change.at),
    ...(change.counted === undefined
      ? {}
      : { liveByDay: counted(base.liveByDay, change.counted, 1), ...countScopes(base, scopes, change.counted, 1) }),
  };
  if (current && at < current.lastGrantAt) return next;
  const { client: _client, ...rest } = next;
  return { ...rest, ...(client ? { client } : {}) };
}

function applyChange(current: AppSummary | null, change: AppChange): AppSummary | null {
  if (change.created) return applyCreation(current, { ...change, created: change.created });
  // A grant older than the summary's first was counted by a summary since forgotten (its app
  // revoked): its refresh or revocation changes nothing.
  if (!current || change.grantCreatedAt < current.firstUsedAt) return current;
  // The grant's scopes move with it.
  const scopes = change.scopes ?? [];
  let next = current;
  if (change.uncounted !== undefined)
    next = {
      ...next,
      liveByDay: counted(next.liveByDay, change.uncounted, -1),
      ...countScopes(next, scopes, change.uncounted, -1),
    };
  if (change.counted === undefined) return next;
  // A refresh: the grant's expiry moves, and the app was used.
  return {
    ...next,
    liveByDay: counted(next.liveByDay, change.counted, 1),
    ...countScopes(next, scopes, change.counted, 1),
    lastUsedAt: Math.max(next.lastUsedAt, change.at),
  };
}

/** The summary with these changes applied: creations first, so that a refresh or a revocation
 * of a grant created in the same batch finds it counted. Null: nothing was ever counted. The
 * days before its latest use are dropped: their grants have expired (so the record holds the
 * days ahead only, however long the app is used). */
export function applyChanges(current: AppSummary | null, changes: readonly AppChange[]): AppSummary | null {
  const ordered = [...changes].sort((a, b) => Number(!a.created) - Number(!b.created) || a.at - b.at);
  const next = ordered.reduce<AppSummary | null>(applyChange, current);
  if (!next) return null;
  const { moreScopesUntil: _more, ...rest } = next;
  return { ...rest, ...daysAhead(next, dayOf(next.lastUsedAt)) };
}

/** Read, change, write back only if nobody wrote in between; retried. */
async function update(
  store: KeyValueStore,
  clientId: string,
  change: (current: AppSummary | null) => AppSummary | null,
): Promise<void> {
  const key = RECORDS.appSummary.key(appIdOf(clientId));
  for (let attempt = 0; attempt < 8; attempt++) {
    if (attempt > 0) await collisionPause(attempt);
    const { value, version } = await store.getVersioned<AppSummary>(key);
    const next = change(value?.kind === "app-summary" && value.clientId === clientId ? value : null);
    if (next === null) return;
    if (await store.setIfUnchanged(key, withExpiry(next), version)) return;
  }
  throw new Error("an app summary kept changing during an update");
}

/** Counts several grants of one app at once, into the summary itself: the seeding of tests
 * and the bench. Requests write changes instead (app-changes.ts). */
export function summariseGrants(store: KeyValueStore, grants: readonly ChangedGrant[]): Promise<void> {
  const creations = grants.map((grant) => creationOf(grant, grant.createdAt));
  return update(store, grants[0]!.clientId, (current) => applyChanges(current, creations));
}

/** Live grants: those whose expiry day has not passed (a grant expiring later today counts). */
export function liveGrantCount(summary: AppSummary, now: number): number {
  const today = dayOf(now);
  return Object.entries(summary.liveByDay).reduce((sum, [day, count]) => (Number(day) >= today ? sum + count : sum), 0);
}

/** The ids of every app with a summary (one list: one key per app, never per grant). */
export async function summaryIds(store: KeyValueStore): Promise<string[]> {
  return (await store.list(RECORDS.appSummary.prefix)).map((key) => key.slice(RECORDS.appSummary.prefix.length));
}

export async function readSummary(store: KeyValueStore, appId: string): Promise<AppSummary | null> {
  return summaryOf(await store.get<AppSummary>(RECORDS.appSummary.key(appId)), appId);
}

export async function forgetSummary(store: KeyValueStore, appId: string): Promise<void> {
  await store.delete(RECORDS.appSummary.key(appId));
}

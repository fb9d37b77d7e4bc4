// One summary record per app, kept current as its grants are created, refreshed and revoked,
// so that the owner's console reads one record per app however many grants the app holds (an
// MCP host reconnecting daily makes hundreds a year). Live grants are counted by the day their
// expiry falls on: a grant that expires leaves the count on its own, with nothing to update.
//
// Every update is a read and a conditional write, retried: two requests at once cannot lose
// each other's count on production Blobs.
import type { ClientDisplay } from "../core/client-shape.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore, Versioned } from "../platform/store.ts";
import { appIdOf } from "./revocations.ts";
import { collisionPause } from "../platform/collision-pause.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface AppSummary {
  kind: "app-summary";
  clientId: string;
  /** The app's name and logo as it claimed them at its latest sign-in. */
  client?: ClientDisplay;
  /** The scopes of its latest grant. */
  scopes: string[];
  resource?: string;
  /** Its first grant still counted, and its latest. */
  firstUsedAt: number;
  lastGrantAt: number;
  /** Its latest grant or refresh (verifications are in the app's usage record). */
  lastUsedAt: number;
  /** Live grants, by the day (since the epoch) their expiry falls on. */
  liveByDay: Record<string, number>;
  expiresAt: number;
}

/** What a summary needs of a grant. */
export interface SummarisedGrant {
  clientId: string;
  client?: ClientDisplay;
  scopes: string[];
  resource?: string;
  createdAt: number;
  expiresAt: number;
}

const summaryKey = (clientId: string) => RECORDS.appSummary.key(appIdOf(clientId));
const dayOf = (at: number) => String(Math.floor(at / DAY_MS));

function expiryOf(liveByDay: Record<string, number>, floor: number): number {
  const last = Math.max(0, ...Object.keys(liveByDay).map(Number));
  // Swept once the day its last grant expires on has passed.
  return Math.max(floor, (last + 1) * DAY_MS);
}

function counted(liveByDay: Record<string, number>, at: number, by: number): Record<string, number> {
  const day = dayOf(at);
  const next = { ...liveByDay, [day]: (liveByDay[day] ?? 0) + by };
  if (next[day]! <= 0) delete next[day];
  return next;
}

/** An app's summary as read for an update, begun before the update itself (see readForUpdate). */
export type SummaryRead = Promise<Versioned<AppSummary>>;

/** Starts reading the app's summary for a later update: a caller that knows the app early
 * (the code's redemption) reads it beside its own round trip, not after it. A stale read
 * costs only a retry: the write is conditional. */
export function readForUpdate(store: KeyValueStore, clientId: string): SummaryRead {
  const read = store.getVersioned<AppSummary>(summaryKey(clientId));
  read.catch(() => undefined); // whoever uses it sees the failure; unused, it is nobody's
  return read;
}

/** Read (or take the read begun before), change, write back only if nobody wrote in between; retried. */
async function update(store: KeyValueStore, clientId: string, change: (current: AppSummary | null) => AppSummary | null, begun?: SummaryRead): Promise<void> {
  const key = summaryKey(clientId);
  for (let attempt = 0; attempt < 8; attempt++) {
    if (attempt > 0) await collisionPause(attempt);
    const { value, version } = await (attempt === 0 && begun ? begun : store.getVersioned<AppSummary>(key));
    const next = change(value?.kind === "app-summary" && value.clientId === clientId ? value : null);
    if (next === null) return;
    if (await store.setIfUnchanged(key, { ...next, expiresAt: expiryOf(next.liveByDay, next.lastUsedAt) }, version)) return;
  }
  throw new Error("an app summary kept changing during an update");
}

/** Counts a new grant (or, from the rebuild, several grants of one app found at once). */
export function summariseGrants(store: KeyValueStore, grants: readonly SummarisedGrant[], begun?: SummaryRead): Promise<void> {
  const latest = grants.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
  return update(store, latest.clientId, (current) => {
    let liveByDay = current?.liveByDay ?? {};
    for (const grant of grants) liveByDay = counted(liveByDay, grant.expiresAt, 1);
    const newest = !current || latest.createdAt >= current.lastGrantAt;
    const source = newest ? latest : current!;
    const summary: AppSummary = {
      kind: "app-summary",
      clientId: latest.clientId,
      scopes: source.scopes,
      firstUsedAt: Math.min(current?.firstUsedAt ?? Infinity, ...grants.map((g) => g.createdAt)),
      lastGrantAt: Math.max(current?.lastGrantAt ?? 0, latest.createdAt),
      lastUsedAt: Math.max(current?.lastUsedAt ?? 0, latest.createdAt),
      liveByDay,
      expiresAt: 0,
    };
    const client = newest ? latest.client : current!.client;
    const resource = source.resource;
    return { ...summary, ...(client ? { client } : {}), ...(resource !== undefined ? { resource } : {}) };
  }, begun);
}

/** Whether this summary counted the grant: a grant older than its first one was counted by a
 * summary since forgotten (its app revoked), or never (stored before summaries existed). */
function counts(current: AppSummary | null, grant: SummarisedGrant): current is AppSummary {
  return current !== null && grant.createdAt >= current.firstUsedAt;
}

/** A refresh: the grant's expiry moves, and the app was used. */
export function summariseRefresh(store: KeyValueStore, grant: SummarisedGrant, nextExpiresAt: number, now: number): Promise<void> {
  return update(store, grant.clientId, (current) =>
    counts(current, grant)
      ? { ...current, lastUsedAt: Math.max(current.lastUsedAt, now), liveByDay: counted(counted(current.liveByDay, grant.expiresAt, -1), nextExpiresAt, 1) }
      : null,
  );
}

/** One grant revoked (by its client, or a replayed code). */
export function summariseRevocation(store: KeyValueStore, grant: SummarisedGrant): Promise<void> {
  return update(store, grant.clientId, (current) =>
    counts(current, grant) ? { ...current, liveByDay: counted(current.liveByDay, grant.expiresAt, -1) } : null,
  );
}

/** Live grants: those whose expiry day has not passed (a grant expiring later today counts). */
export function liveGrantCount(summary: AppSummary, now: number): number {
  const today = Number(dayOf(now));
  return Object.entries(summary.liveByDay).reduce((sum, [day, count]) => (Number(day) >= today ? sum + count : sum), 0);
}

/** The ids of every app with a summary (one list: one key per app, never per grant). */
export async function summaryIds(store: KeyValueStore): Promise<string[]> {
  return (await store.list(RECORDS.appSummary.prefix)).map((key) => key.slice(RECORDS.appSummary.prefix.length));
}

export async function readSummary(store: KeyValueStore, appId: string): Promise<AppSummary | null> {
  const summary = await store.get<AppSummary>(RECORDS.appSummary.key(appId));
  return summary?.kind === "app-summary" && appIdOf(summary.clientId) === appId ? summary : null;
}

export async function forgetSummary(store: KeyValueStore, appId: string): Promise<void> {
  await store.delete(RECORDS.appSummary.key(appId));
}

// What happened to an app's grants, one record per event, until it is folded into the app's
// summary (app-summary-fold.ts): a grant created, refreshed or revoked. Each is written only
// if new, at a key of its own named by the grant and the event (the grant's creation, its
// refresh to generation n, its revocation), so that many requests of one app at once never
// write the same record, and an event retried or raced is recorded once.
import type { ClientDisplay } from "../core/client-shape.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { appIdOf } from "./revocations.ts";
import { DAY, dayOf } from "../core/time.ts";

export interface AppChange {
  kind: "app-change";
  clientId: string;
  grantId: string;
  /** When its grant was created: a change of a grant an owner's revocation covers, or older
   * than the summary's first counted grant, changes nothing. */
  grantCreatedAt: number;
  at: number;
  /** The grant is counted at this expiry from now on (a creation, a refresh). */
  counted?: number;
  /** The grant is no longer counted at this expiry (a refresh, a revocation). */
  uncounted?: number;
  /** A refresh's or a revocation's grant's scopes, which move with it (held-scopes.ts). A
   * creation's are in `created`. */
  scopes?: string[];
  /** A creation: the app as it signed in, and until when its grant may yet be written (a
   * redemption that failed after using its code up may be retried until the code's end). */
  created?: { client?: ClientDisplay; scopes: string[]; writableUntil: number };
  expiresAt: number;
}

/** What a change (and the summary it is folded into) needs of its grant. */
export interface ChangedGrant {
  id: string;
  clientId: string;
  client?: ClientDisplay;
  scopes: string[];
  createdAt: number;
  expiresAt: number;
}

/** Kept until the last expiry it moves has passed (then it counts for nothing), a day at least. */
function expiring(change: Omit<AppChange, "expiresAt">): AppChange {
  const last = Math.max(change.counted ?? 0, change.uncounted ?? 0, change.at + DAY);
  return { ...change, expiresAt: (dayOf(last) + 1) * DAY };
}

const base = (grant: ChangedGrant, at: number) => ({
  kind: "app-change" as const,
  clientId: grant.clientId,
  grantId: grant.id,
  grantCreatedAt: grant.createdAt,
  at,
});

export function creationOf(grant: ChangedGrant, writableUntil: number): AppChange {
  const created = { ...(grant.client ? { client: grant.client } : {}), scopes: grant.scopes, writableUntil };
  return expiring({ ...base(grant, grant.createdAt), counted: grant.expiresAt, created });
}

export function refreshOf(grant: ChangedGrant, nextExpiresAt: number, now: number): AppChange {
  return expiring({ ...base(grant, now), uncounted: grant.expiresAt, counted: nextExpiresAt, scopes: grant.scopes });
}

export function revocationOf(grant: ChangedGrant, now: number): AppChange {
  return expiring({ ...base(grant, now), uncounted: grant.expiresAt, scopes: grant.scopes });
}

/** A change's id: its grant, and what happened to it (`c` created, `g<n>` refreshed to
 * generation n, `r` revoked). Grant ids are base64url: no dot in them. */
export type ChangeEvent = "c" | "r" | `g${number}`;
export const changeId = (grantId: string, event: ChangeEvent): string => `${grantId}.${event}`;
export const grantIdOfChange = (id: string): string => id.slice(0, id.indexOf("."));
export const isCreation = (id: string): boolean => id.endsWith(".c");

export const changeKey = (appId: string, id: string): string => RECORDS.appChange.key(appId, id);

/** Records a change, once: false when it was recorded before (a retry, or a race of two
 * requests about the same event, which only one of them wins anyway). */
export function recordChange(store: KeyValueStore, event: ChangeEvent, change: AppChange): Promise<boolean> {
  return store.setIfNew(changeKey(appIdOf(change.clientId), changeId(change.grantId, event)), change);
}

/** Every change not yet deleted, by app id (one list for every app: folded right after they
 * are written, few are ever there at once). */
export async function listChanges(store: KeyValueStore, appId?: string): Promise<Map<string, string[]>> {
  // One app's: under `<app>/`, its key with an empty change id.
  const keys = await store.list(appId === undefined ? RECORDS.appChange.prefix : changeKey(appId, ""));
  const byApp = new Map<string, string[]>();
  for (const key of keys) {
    const [app, id] = key.slice(RECORDS.appChange.prefix.length).split("/");
    if (!app || !id || !id.includes(".")) continue;
    byApp.set(app, [...(byApp.get(app) ?? []), id]);
  }
  return byApp;
}

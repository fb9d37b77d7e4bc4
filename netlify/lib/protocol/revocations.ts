// Revoking every app, or every grant of one app, in one write, however many grants: the moment
// is recorded, and a grant created at or before it is dead (the record is read beside the grant
// on every token check). Ceiling: one moment overall, plus one per app revoked since the last
// revoke-all, which clears those it covers.
import { secretHash } from "../crypto/secrets.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";

export interface Revocations {
  kind: "revocations";
  /** Every grant created at or before this moment is revoked (0: none). */
  all: number;
  /** Per app (by appIdOf), every grant of that app created at or before the moment. */
  apps: Record<string, number>;
}

const KEY = RECORDS.revocations.key();
const NONE: Revocations = { kind: "revocations", all: 0, apps: {} };

/** The id the console and the app's records use for a client_id. */
export const appIdOf = (clientId: string): string => secretHash(clientId);

export async function readRevocations(store: KeyValueStore): Promise<Revocations> {
  const record = await store.get<Revocations>(KEY);
  return record?.kind === "revocations" &&
    typeof record.all === "number" &&
    typeof record.apps === "object" &&
    (record.apps as unknown) !== null
    ? record
    : NONE;
}

/** Whether a revoke-all or revoke-app since killed a grant of this client created then. */
export function revokedByOwner(revocations: Revocations, clientId: string, createdAt: number): boolean {
  return createdAt <= revocations.all || createdAt <= (revocations.apps[appIdOf(clientId)] ?? 0);
}

/** Records a revocation, with a conditional write retried a few times: two at once both hold.
 * The moments only move forward. */
async function record(store: KeyValueStore, change: (current: Revocations) => Revocations): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await collisionPause(attempt);
    const { value, version } = await store.getVersioned<Revocations>(KEY);
    const current = value?.kind === "revocations" ? value : NONE;
    if (await store.setIfUnchanged(KEY, change(current), version)) return;
  }
  throw new Error("the revocations record kept changing during an update");
}

export function revokeEverything(store: KeyValueStore, now: number): Promise<void> {
  return record(store, (current) => {
    const all = Math.max(current.all, now);
    // A per-app moment at or before the overall one says nothing more.
    const apps = Object.fromEntries(Object.entries(current.apps).filter(([, at]) => at > all));
    return { kind: "revocations", all, apps };
  });
}

export function revokeEveryGrantOf(store: KeyValueStore, clientId: string, now: number): Promise<void> {
  const appId = appIdOf(clientId);
  return record(store, (current) => ({
    ...current,
    apps: { ...current.apps, [appId]: Math.max(current.apps[appId] ?? 0, now) },
  }));
}

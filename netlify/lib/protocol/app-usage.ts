// When an app's access tokens were last verified: a record per app of its own, written without
// reading it, so that a verification never rewrites the app's summary (which a sign-in may be
// updating at the same moment) and stays one round trip.
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import type { GrantRecord } from "./grants.ts";
import { appIdOf } from "./revocations.ts";
import { USAGE_WRITE_INTERVAL_MS } from "../core/policy.ts";

interface AppUsage {
  kind: "app-usage";
  lastUsedAt: number;
  expiresAt: number;
}

/** Per function instance: the last usage write of each app, bounded. */
const lastUsageWrite = new Map<string, number>();

/** Records a verification of one of the app's access tokens: one write per app every five
 * minutes per function instance at most. */
export async function recordGrantUse(store: KeyValueStore, grant: GrantRecord, now: number): Promise<void> {
  const appId = appIdOf(grant.clientId);
  const last = Math.max(grant.lastUsedAt, lastUsageWrite.get(appId) ?? 0);
  if (now - last < USAGE_WRITE_INTERVAL_MS) return;
  lastUsageWrite.set(appId, now);
  if (lastUsageWrite.size > 1000) lastUsageWrite.delete(lastUsageWrite.keys().next().value!);
  await store.set(RECORDS.appUsage.key(appId), {
    kind: "app-usage",
    lastUsedAt: now,
    expiresAt: grant.expiresAt,
  } satisfies AppUsage);
}

export async function appVerifiedAt(store: KeyValueStore, appId: string): Promise<number> {
  const usage = await store.get<AppUsage>(RECORDS.appUsage.key(appId));
  return usage?.kind === "app-usage" && typeof usage.lastUsedAt === "number" ? usage.lastUsedAt : 0;
}

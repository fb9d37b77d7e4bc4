// Upgrading: grants stored before app summaries existed are counted into summaries once, a
// bounded batch at a time, resuming where the last batch stopped. The console runs a batch
// before it reads the summaries until the rebuild is done (so that its first load after the
// upgrade shows every app), and so does the hourly housekeeping; once done, it costs one read.
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { summariseGrants } from "../protocol/app-summaries.ts";
import type { GrantRecord } from "../protocol/grants.ts";
import { readRevocations, revokedByOwner } from "../protocol/revocations.ts";

interface RebuildState {
  kind: "summary-rebuild";
  done: boolean;
  /** The last grant key counted. */
  after?: string;
}

/** Grants read per batch (a console load's batch is smaller). */
export const REBUILD_BATCH = 1000;
const AT_ONCE = 20;
const STATE_KEY = RECORDS.summaryRebuild.key();

async function readAll<T>(store: KeyValueStore, keys: readonly string[]): Promise<(T | null)[]> {
  const out: (T | null)[] = [];
  for (let i = 0; i < keys.length; i += AT_ONCE) out.push(...(await Promise.all(keys.slice(i, i + AT_ONCE).map((key) => store.get<T>(key)))));
  return out;
}

/** Runs one batch if the rebuild is not done; true once it is. */
export async function rebuildSummaries(store: KeyValueStore, now: number, batch = REBUILD_BATCH): Promise<boolean> {
  const state = await store.get<RebuildState>(STATE_KEY);
  if (state?.kind === "summary-rebuild" && state.done) return true;
  const after = state?.kind === "summary-rebuild" ? state.after : undefined;
  const keys = (await store.list(RECORDS.grant.prefix)).sort().filter((key) => after === undefined || key > after);
  const taken = keys.slice(0, batch);
  const [grants, revocations] = await Promise.all([readAll<GrantRecord>(store, taken), readRevocations(store)]);
  const legacy = grants.filter(
    (g): g is GrantRecord => g?.kind === "grant" && !g.summarised && g.revokedAt === undefined && g.expiresAt > now && !revokedByOwner(revocations, g.clientId, g.createdAt),
  );
  const byApp = new Map<string, GrantRecord[]>();
  for (const grant of legacy) byApp.set(grant.clientId, [...(byApp.get(grant.clientId) ?? []), grant]);
  // Counted before the cursor moves on: a batch cut short is counted again rather than lost (an
  // app that holds a token always shows).
  for (const group of byApp.values()) await summariseGrants(store, group);
  const done = taken.length === keys.length;
  const next: RebuildState = { kind: "summary-rebuild", done, ...(taken.length > 0 ? { after: taken[taken.length - 1]! } : after ? { after } : {}) };
  await store.set(STATE_KEY, next);
  return done;
}

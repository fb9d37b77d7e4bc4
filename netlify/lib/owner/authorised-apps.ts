// The apps that hold tokens, as the owner's console shows them, and revoking them from there.
// Read from one summary per app (protocol/app-summaries.ts), never from the grants (docs/data-model.md).
// Revoking is one write however many grants (protocol/revocations.ts), for every token at once, and
// forgets the approval: a session alone will not approve the app again.
import type { AppView } from "../pages/account-view.ts";
import { forgetAllApprovals, forgetApproval } from "./app-approvals.ts";
import { forgetSummary, liveGrantCount, readSummary, summaryIds, type AppSummary } from "../protocol/app-summaries.ts";
import { changeKey, listChanges } from "../protocol/app-changes.ts";
import { liveScopes } from "../protocol/held-scopes.ts";
import { foldChanges, withWaitingChanges } from "../protocol/app-summary-fold.ts";
import { appVerifiedAt } from "../protocol/app-usage.ts";
import {
  appIdOf,
  readRevocations,
  revokedByOwner,
  revokeEveryGrantOf,
  revokeEverything,
} from "../protocol/revocations.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { afterAnswer, type WaitUntil } from "../platform/after-answer.ts";
import { APPS_SHOWN } from "../core/policy.ts";
import { DAY } from "../core/time.ts";

const APP_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface AuthorisedApps {
  apps: AppView[];
  /** Apps with a summary beyond those read. */
  more: number;
}

/** The apps with a summary or a change waiting, and each one's waiting changes: two lists. */
async function appsListed(store: KeyValueStore): Promise<{ ids: string[]; changes: Map<string, string[]> }> {
  const [summaries, changes] = await Promise.all([summaryIds(store), listChanges(store)]);
  return { ids: [...new Set([...summaries, ...changes.keys()])], changes };
}

/** The apps' summaries as they stand: read after the changes were listed, then the changes
 * not folded since (protocol/app-summary-fold.ts). Only those with a live grant that no
 * revocation since covers. */
async function liveSummaries(
  store: KeyValueStore,
  ids: readonly string[],
  changes: Map<string, string[]>,
  now: number,
): Promise<AppSummary[]> {
  const [stored, revocations] = await Promise.all([
    Promise.all(ids.map((id) => readSummary(store, id))),
    readRevocations(store),
  ]);
  const summaries = await Promise.all(
    ids.map((id, i) => withWaitingChanges(store, id, stored[i]!, changes.get(id) ?? [], revocations)),
  );
  return summaries.filter(
    (s): s is AppSummary =>
      s !== null && liveGrantCount(s, now) > 0 && !revokedByOwner(revocations, s.clientId, s.lastGrantAt),
  );
}

function appView(summary: AppSummary, verifiedAt: number, now: number): AppView {
  const lastDay = Math.max(...Object.keys(summary.liveByDay).map(Number));
  const held = liveScopes(summary, now);
  const app: AppView = {
    id: appIdOf(summary.clientId),
    clientId: summary.clientId,
    scopes: Object.keys(held.scopes),
    scopeGrants: held.scopes,
    createdAt: summary.firstUsedAt,
    lastUsedAt: Math.max(summary.lastUsedAt, verifiedAt),
    expiresAt: (lastDay + 1) * DAY,
    grants: liveGrantCount(summary, now),
  };
  if (held.more) app.moreScopes = true;
  if (summary.client?.name) app.name = summary.client.name;
  if (summary.client?.logoUri) app.logoUri = summary.client.logoUri;
  return app;
}

/** Every app with a live grant (up to APPS_SHOWN), most recently used first. Changes found
 * waiting are folded after the answer (`waitUntil`): a fold cut short is repaired by a read. */
export async function listAuthorisedApps(
  store: KeyValueStore,
  now: number,
  waitUntil?: WaitUntil,
): Promise<AuthorisedApps> {
  const { ids, changes } = await appsListed(store);
  const shown = ids.slice(0, APPS_SHOWN);
  const [live, verified] = await Promise.all([
    liveSummaries(store, shown, changes, now),
    Promise.all(shown.map((id) => appVerifiedAt(store, id))),
  ]);
  const verifiedAt = new Map(shown.map((id, i) => [id, verified[i]!]));
  const apps = live
    .map((s) => appView(s, verifiedAt.get(appIdOf(s.clientId)) ?? 0, now))
    .sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  const waiting = shown.filter((id) => changes.has(id));
  if (waiting.length > 0) {
    const fold = () => Promise.all(waiting.map((id) => foldChanges(store, id, now)));
    const folds = (waitUntil ? new Promise<void>((resolve) => setImmediate(resolve)).then(fold) : fold()).catch(
      (error: unknown) => console.error("folding app changes:", error),
    );
    await afterAnswer(waitUntil, folds);
  }
  return { apps, more: ids.length - shown.length };
}

/** Deletes the changes listed (an app revoked: they are of grants the revocation covers). */
async function forgetChanges(
  store: KeyValueStore,
  changes: Map<string, string[]>,
  appIds: readonly string[],
): Promise<void> {
  await Promise.all(
    appIds.flatMap((appId) => (changes.get(appId) ?? []).map((id) => store.delete(changeKey(appId, id)))),
  );
}

/** Revokes every grant of one app (by its id); false when the app holds no live grant. */
export async function revokeApp(store: KeyValueStore, appId: string, now: number): Promise<boolean> {
  if (!APP_ID.test(appId)) return false;
  const changes = await listChanges(store, appId);
  const [summary] = await liveSummaries(store, [appId], changes, now);
  if (!summary) return false;
  // The revocation first: from this write on, every token of the app is dead.
  await revokeEveryGrantOf(store, summary.clientId, now);
  await Promise.all([
    forgetSummary(store, appId),
    forgetApproval(store, summary.clientId),
    forgetChanges(store, changes, [appId]),
  ]);
  return true;
}

/** Revokes every grant of every app with one write; answers how many apps held one. */
export async function revokeAllApps(store: KeyValueStore, now: number): Promise<number> {
  const { ids, changes } = await appsListed(store);
  const live = await liveSummaries(store, ids, changes, now);
  await revokeEverything(store, now);
  // Tidying: the console hides summaries that the revocation covers, should any remain.
  await Promise.all([
    ...ids.map((id) => forgetSummary(store, id)),
    forgetAllApprovals(store),
    forgetChanges(store, changes, ids),
  ]);
  return live.length;
}

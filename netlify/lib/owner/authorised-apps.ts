// The apps that hold tokens, as the owner's console shows them, and revoking them from there.
// Read from one summary per app (protocol/app-summaries.ts), never from the grants: the cost
// is a few reads per app, however many grants each holds. Revoking is one write however many
// grants there are (protocol/revocations.ts), and takes effect for every token at once.
// Revoking an app also forgets that the owner approved it: a session alone will not approve
// it again, the password or a passkey must.
import type { AppView } from "../pages/account-view.ts";
import { forgetAllApprovals, forgetApproval } from "./app-approvals.ts";
import { forgetSummary, liveGrantCount, readSummary, summaryIds, type AppSummary } from "../protocol/app-summaries.ts";
import { appVerifiedAt } from "../protocol/app-usage.ts";
import { appIdOf, readRevocations, revokedByOwner, revokeEveryGrantOf, revokeEverything } from "../protocol/revocations.ts";
import type { KeyValueStore } from "../platform/store.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Apps read per console load (two reads each). More than this many apps holding tokens at
 * once is not a personal site's life; the rest are counted, and revoke-all reaches them. */
export const APPS_SHOWN = 20;
const APP_ID = /^[A-Za-z0-9_-]{1,64}$/;

interface AuthorisedApps {
  apps: AppView[];
  /** Apps with a summary beyond those read. */
  more: number;
}

/** An app with a live grant that no revocation since covers. */
async function liveSummaries(store: KeyValueStore, ids: readonly string[], now: number): Promise<AppSummary[]> {
  const [summaries, revocations] = await Promise.all([Promise.all(ids.map((id) => readSummary(store, id))), readRevocations(store)]);
  return summaries.filter((s): s is AppSummary => s !== null && liveGrantCount(s, now) > 0 && !revokedByOwner(revocations, s.clientId, s.lastGrantAt));
}

function appView(summary: AppSummary, verifiedAt: number, now: number): AppView {
  const lastDay = Math.max(...Object.keys(summary.liveByDay).map(Number));
  const app: AppView = {
    id: appIdOf(summary.clientId),
    clientId: summary.clientId,
    scopes: summary.scopes,
    createdAt: summary.firstUsedAt,
    lastUsedAt: Math.max(summary.lastUsedAt, verifiedAt),
    expiresAt: (lastDay + 1) * DAY_MS,
    grants: liveGrantCount(summary, now),
  };
  if (summary.client?.name) app.name = summary.client.name;
  if (summary.client?.logoUri) app.logoUri = summary.client.logoUri;
  return app;
}

/** Every app with a live grant (up to APPS_SHOWN), most recently used first. */
export async function listAuthorisedApps(store: KeyValueStore, now: number): Promise<AuthorisedApps> {
  const ids = await summaryIds(store);
  const shown = ids.slice(0, APPS_SHOWN);
  const [live, verified] = await Promise.all([liveSummaries(store, shown, now), Promise.all(shown.map((id) => appVerifiedAt(store, id)))]);
  const verifiedAt = new Map(shown.map((id, i) => [id, verified[i]!]));
  const apps = live.map((s) => appView(s, verifiedAt.get(appIdOf(s.clientId)) ?? 0, now)).sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  return { apps, more: ids.length - shown.length };
}

/** Revokes every grant of one app (by its id); false when the app holds no live grant. */
export async function revokeApp(store: KeyValueStore, appId: string, now: number): Promise<boolean> {
  if (!APP_ID.test(appId)) return false;
  const [summary] = await liveSummaries(store, [appId], now);
  if (!summary) return false;
  // The revocation first: from this write on, every token of the app is dead.
  await revokeEveryGrantOf(store, summary.clientId, now);
  await Promise.all([forgetSummary(store, appId), forgetApproval(store, summary.clientId)]);
  return true;
}

/** Revokes every grant of every app with one write; answers how many apps held one. */
export async function revokeAllApps(store: KeyValueStore, now: number): Promise<number> {
  const ids = await summaryIds(store);
  const live = await liveSummaries(store, ids, now);
  await revokeEverything(store, now);
  // Tidying: the console hides summaries that the revocation covers, should any remain.
  await Promise.all([...ids.map((id) => forgetSummary(store, id)), forgetAllApprovals(store)]);
  return live.length;
}

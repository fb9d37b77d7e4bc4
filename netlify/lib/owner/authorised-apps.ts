// The apps that hold tokens, as the owner's console shows them, and revoking them from there.
// Revoking an app also forgets that the owner approved it: a session alone will not approve
// it again, the password or a passkey must.
import type { AppView } from "../pages/account-view.ts";
import { forgetAllApprovals, forgetApproval } from "./app-approvals.ts";
import { grantLastUsedAt, liveGrant, liveGrants, revokeGrant } from "../protocol/grants.ts";
import type { KeyValueStore } from "../platform/store.ts";

/** Every app with a live grant, most recently used first. */
export async function listAuthorisedApps(store: KeyValueStore, now: number): Promise<AppView[]> {
  const grants = await liveGrants(store, now);
  const lastUsed = await Promise.all(grants.map((grant) => grantLastUsedAt(store, grant)));
  return grants
    .map((grant, i): AppView => {
      const app: AppView = {
        id: grant.id,
        clientId: grant.clientId,
        scopes: grant.scopes,
        createdAt: grant.createdAt,
        lastUsedAt: lastUsed[i]!,
        expiresAt: grant.expiresAt,
      };
      if (grant.client?.name) app.name = grant.client.name;
      if (grant.client?.logoUri) app.logoUri = grant.client.logoUri;
      return app;
    })
    .sort((a, b) => b.lastUsedAt - a.lastUsedAt);
}

/** Revokes one live grant; false when there is no such live grant. */
export async function revokeApp(store: KeyValueStore, id: string, now: number): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return false;
  const grant = await liveGrant(store, id, now);
  if (!grant) return false;
  await Promise.all([revokeGrant(store, id, now), forgetApproval(store, grant.clientId)]);
  return true;
}

export async function revokeAllApps(store: KeyValueStore, now: number): Promise<number> {
  const grants = await liveGrants(store, now);
  await Promise.all([...grants.map((grant) => revokeGrant(store, grant.id, now)), forgetAllApprovals(store)]);
  return grants.length;
}

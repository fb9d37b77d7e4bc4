// What the owner approved for each app with the password or a passkey. A live session alone
// approves an app again only within that (the client_id, a redirect URI, the resource or its
// absence, no scope beyond those last approved there), so that a click the owner did not mean, or
// a script sharing the session, cannot hand a new app a code, nor an app approved for one resource
// a token for another (docs/security.md). Revoking an app forgets its approval.
import type { Config } from "../platform/config.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import type { ClientRead } from "../core/client-shape.ts";
import { canonicalUrl, isLoopbackRedirect, redirectUriMatches, urlOf } from "../core/urls.ts";
import { APPROVAL_TTL_MS } from "../core/policy.ts";

/** Enough for any real app; keeps the record small. */
const MAX_REDIRECT_URIS = 10;
const MAX_RESOURCES = 10;

/** One resource approved for the app, and the scopes granted there the last time. No resource
 * (a token without an audience, good wherever none is required) is a value of its own: covered
 * by no resource's approval, and covering none. */
export interface ApprovedResource {
  /** Exactly as the request named it. */
  resource?: string;
  scopes: string[];
}

export interface AppApproval {
  kind: "app-approval";
  clientId: string;
  /** The resources approved that way, each with its scopes, most recent first. */
  resources: ApprovedResource[];
  /** The redirect URIs approved that way (canonical form), most recent first. */
  redirectUris: string[];
  method: "password" | "passkey";
  approvedAt: number;
  expiresAt: number;
}

interface Approved {
  clientId: string;
  redirectUri: string;
  resource?: string;
  scopes: string[];
  method: AppApproval["method"];
}

const approvalKey = RECORDS.appApproval.key;

export async function approvalOf(store: KeyValueStore, clientId: string, now: number): Promise<AppApproval | null> {
  const record = await store.get<AppApproval>(approvalKey(clientId));
  return record?.kind === "app-approval" && record.clientId === clientId && record.expiresAt > now ? record : null;
}

/** Whether one of these URIs is this redirect URI (a native app's loopback one on any port: it
 * listens on a new one each time). */
function includesRedirectUri(uris: readonly string[], redirectUri: string): boolean {
  const used = urlOf(redirectUri);
  return used !== null && uris.some((uri) => redirectUriMatches(uri, used));
}

/** Whether the approval covers this redirect URI, this resource (or none) and these scopes
 * there (identity alone: no scope). */
export function approvalCovers(
  approval: AppApproval | null,
  redirectUri: string,
  resource: string | undefined,
  scopes: readonly string[],
): boolean {
  if (!approval || !includesRedirectUri(approval.redirectUris, redirectUri)) return false;
  const approved = approval.resources.find((entry) => entry.resource === resource);
  return approved !== undefined && scopes.every((scope) => approved.scopes.includes(scope));
}

/** Whether this redirect URI was approved for the app before (error redirects trust it). */
export function approvesRedirect(approval: AppApproval | null, redirectUri: string): boolean {
  return approval !== null && includesRedirectUri(approval.redirectUris, redirectUri);
}

/** Records an approval made with the password or a passkey: its scopes replace the last ones
 * for its resource (the owner's latest choice is the ceiling there), its resource and redirect
 * URI join the others. `first`: the app had no live approval before (never approved, revoked
 * since, or expired). */
export async function rememberApproval(
  store: KeyValueStore,
  approved: Approved,
  now: number,
): Promise<{ first: boolean }> {
  const previous = await approvalOf(store, approved.clientId, now);
  const redirectUri = canonicalUrl(approved.redirectUri);
  // A loopback URI on another port is the same one again, not another.
  const others = (previous?.redirectUris ?? []).filter(
    (uri) => uri !== redirectUri && !includesRedirectUri([uri], redirectUri),
  );
  const resource: ApprovedResource =
    approved.resource === undefined
      ? { scopes: approved.scopes }
      : { resource: approved.resource, scopes: approved.scopes };
  const otherResources = (previous?.resources ?? []).filter((entry) => entry.resource !== approved.resource);
  const record: AppApproval = {
    kind: "app-approval",
    clientId: approved.clientId,
    resources: [resource, ...otherResources].slice(0, MAX_RESOURCES),
    redirectUris: [redirectUri, ...others].slice(0, MAX_REDIRECT_URIS),
    method: approved.method,
    approvedAt: now,
    expiresAt: now + APPROVAL_TTL_MS,
  };
  await store.set(approvalKey(approved.clientId), record);
  return { first: previous === null };
}

export async function forgetApproval(store: KeyValueStore, clientId: string): Promise<void> {
  await store.delete(approvalKey(clientId));
}

export async function forgetAllApprovals(store: KeyValueStore): Promise<void> {
  const keys = await store.list(RECORDS.appApproval.prefix);
  await Promise.all(keys.map((key) => store.delete(key)));
}

/** Whether this server answers on the blog's own host (the build plugin without an auth host):
 * then any script on the blog can post to the approve step with the session, so a session alone
 * never approves. The build says so (platform/setup.ts): comparing BASE_URL with ME, www. against
 * the apex defeats. */
export function sharesOriginWithSite(config: Pick<Config, "setup">): boolean {
  return config.setup === "shared-origin";
}

/** Whether nothing in the request tells the owner's own use of the app from a stranger's: an app
 * every user of a platform signs in as (a Client ID Metadata Document, such as claude.ai's), or
 * one whose page could not be read this time, answering to a web address. A stranger's link to a
 * sign-in on their own account would look the same, so a session alone never approves it
 * (docs/security.md). A loopback redirect URI answers to this very device; an IndieAuth app is
 * known by its own page. */
export function cannotTellAccountsApart(request: { clientRead?: ClientRead; redirectUri: string }): boolean {
  if (request.clientRead === "page") return false;
  const url = urlOf(request.redirectUri);
  return !url || !isLoopbackRedirect(url);
}

// What the static sign-in page should offer, signed into the request it carries: Approve alone
// when a live session on this device may approve this app on its own (see
// owner/app-approvals.ts); else the password, a passkey, or both.
import type { RequestContext } from "../http/endpoint.ts";
import { approvalCovers, approvalOf, sharesOriginWithSite, type AppApproval } from "../owner/app-approvals.ts";
import { listPasskeys, passwordLoginAllowed } from "../owner/passkeys.ts";
import type { SignInOffer } from "../pages/sign-in-fragment.ts";
import type { AuthorizationRequest } from "../protocol/request-object.ts";
import { isKnownScope } from "../protocol/scopes.ts";

type Approval = Pick<AuthorizationRequest, "clientId" | "redirectUri">;

const readApprovals = new WeakMap<RequestContext, Map<string, Promise<AppApproval | null>>>();

/** The app's live approval, read at most once per request: GET /auth asks twice (the
 * error-redirect trust rule, the offer), and each read is a Blobs round trip. */
export function approvalInRequest(ctx: RequestContext, clientId: string): Promise<AppApproval | null> {
  let read = readApprovals.get(ctx);
  if (!read) readApprovals.set(ctx, (read = new Map()));
  let approval = read.get(clientId);
  if (!approval) read.set(clientId, (approval = approvalOf(ctx.rt.store, clientId, ctx.rt.now())));
  return approval;
}

/** Whether a live session alone may approve this app with these scopes: never where this
 * server shares its origin with the owner's site; elsewhere, within what the owner approved
 * for the app before with the password or a passkey. */
export async function sessionMayApprove(ctx: RequestContext, request: Approval, scopes: readonly string[]): Promise<boolean> {
  if (sharesOriginWithSite(ctx.config)) return false;
  return approvalCovers(await approvalInRequest(ctx, request.clientId), request.redirectUri, scopes);
}

/** `signedIn`: whether a live session is there (the caller has checked it). Approve alone is
 * offered when the scopes the page ticks by default (the known ones) were approved before;
 * the approve step checks the scopes actually ticked. */
export async function signInOffer(ctx: RequestContext, request: Approval & { scopes: string[] }, signedIn: boolean): Promise<SignInOffer> {
  if (signedIn && (await sessionMayApprove(ctx, request, request.scopes.filter(isKnownScope)))) return { session: true };
  const passkeys = await listPasskeys(ctx.rt.store);
  const offer: SignInOffer = { session: false, passkey: passkeys.length > 0, password: passwordLoginAllowed(ctx.config.passwordLogin, passkeys) };
  if (signedIn) offer.signedIn = sharesOriginWithSite(ctx.config) ? "shared-origin" : "new-app";
  return offer;
}

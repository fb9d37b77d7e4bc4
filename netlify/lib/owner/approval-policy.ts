// Who may approve a sign-in request, and with what: the one place that decides it, asked by
// GET /auth (what the page offers, whether errors may go back to the app on their own, and the
// answer to prompt=none) and by the approve step (whether the session may approve alone). It
// reads what it needs once per request: the session, the app's remembered approval, the
// passkeys. The rules:
//   - the password or a passkey may always approve (the passkeys and PASSWORD_LOGIN decide which);
//   - a live session alone may approve only what the owner approved for the app before with
//     either (owner/app-approvals.ts: redirect URI, resource, scopes), never where this server
//     shares the owner's site's origin (any script there could use the session), never when
//     the request says prompt=login, and never for an app every user of a platform signs in
//     as, sending its answer to the web (app-approvals.ts `cannotTellAccountsApart`);
//   - nothing is approved without the owner's click on the consent page, so prompt=consent asks
//     for nothing more, and prompt=none is always refused: login_required where the session
//     could not approve alone (or there is none), consent_required where it could.
import type { ClientRead } from "../core/client-shape.ts";
import type { ConfirmReason, SignInOffer } from "../pages/sign-in-fragment.ts";
import type { Config } from "../platform/config.ts";
import type { KeyValueStore } from "../platform/store.ts";
import type { PromptValue } from "../protocol/prompt.ts";
import { tickedByDefault } from "../protocol/scopes.ts";
import { approvalCovers, approvalOf, approvesRedirect, cannotTellAccountsApart, sharesOriginWithSite, type AppApproval } from "./app-approvals.ts";
import { listPasskeys, passwordLoginAllowed, type PasskeyRecord } from "./passkey-records.ts";
import { currentSession, type SessionRecord } from "./sessions.ts";

/** What the policy reads of a request. */
export interface PolicyRequest {
  clientId: string;
  redirectUri: string;
  /** The resource the token is to be for (RFC 8707), if the request names one. */
  resource?: string;
  scopes: readonly string[];
  defaultScopes?: readonly string[];
  prompt?: readonly PromptValue[];
  /** What was read to know the app (absent: nothing). */
  clientRead?: ClientRead;
  /** Whether the app registered itself here (POST /register). */
  client?: { registered?: true };
}

interface PolicyInput {
  store: KeyValueStore;
  config: Config;
  /** The request whose session cookie counts. */
  req: Request;
  now: number;
}

export interface ApprovalPolicy {
  /** The live session on this device, or null. */
  session(): Promise<SessionRecord | null>;
  /** Whether the owner approved the app before with the password or a passkey (its logo may
   * then be shown). */
  approvedBefore(clientId: string): Promise<boolean>;
  /** Whether the owner approved this redirect URI for the app that way (errors may go there). */
  approvedRedirect(clientId: string, redirectUri: string): Promise<boolean>;
  /** Whether the live session alone may approve the request with these scopes ticked. */
  sessionApproves(request: PolicyRequest, scopes: readonly string[]): Promise<boolean>;
  /** What the page offers for the request (as its scopes are ticked by default). */
  offer(request: PolicyRequest): Promise<SignInOffer>;
  /** prompt=none: the refusal that applies (nothing is approved without a click). */
  silentRefusal(request: PolicyRequest): Promise<"login_required" | "consent_required">;
}

/** Why a signed-in owner is asked for the password or a passkey, as the page says it. */
function confirmReason(config: Config, request: PolicyRequest): ConfirmReason {
  if (sharesOriginWithSite(config)) return "shared-origin";
  if (request.prompt?.includes("login")) return "login";
  if (!cannotTellAccountsApart(request)) return "new-app";
  return request.client?.registered === true ? "registered-app" : "shared-app";
}

export function approvalPolicy({ store, config, req, now }: PolicyInput): ApprovalPolicy {
  let session: Promise<SessionRecord | null> | undefined;
  let passkeys: Promise<PasskeyRecord[]> | undefined;
  const approvals = new Map<string, Promise<AppApproval | null>>();
  const approval = (clientId: string): Promise<AppApproval | null> => {
    let read = approvals.get(clientId);
    if (!read) approvals.set(clientId, (read = approvalOf(store, clientId, now)));
    return read;
  };

  const policy: ApprovalPolicy = {
    session: () => (session ??= currentSession(store, req, config, now)),
    approvedBefore: async (clientId) => (await approval(clientId)) !== null,
    approvedRedirect: async (clientId, redirectUri) => approvesRedirect(await approval(clientId), redirectUri),
    async sessionApproves(request, scopes) {
      if (sharesOriginWithSite(config) || request.prompt?.includes("login") || cannotTellAccountsApart(request)) return false;
      if (!(await policy.session())) return false;
      return approvalCovers(await approval(request.clientId), request.redirectUri, request.resource, scopes);
    },
    async offer(request) {
      // The passkeys are read beside the session and the approval (one round trip, not two).
      const [approves, known] = await Promise.all([policy.sessionApproves(request, tickedByDefault(request)), (passkeys ??= listPasskeys(store))]);
      if (approves) return { session: true };
      const offer: SignInOffer = { session: false, passkey: known.length > 0, password: passwordLoginAllowed(config.passwordLogin, known) };
      if (await policy.session()) offer.signedIn = confirmReason(config, request);
      return offer;
    },
    async silentRefusal(request) {
      return (await policy.sessionApproves(request, tickedByDefault(request))) ? "consent_required" : "login_required";
    },
  };
  return policy;
}

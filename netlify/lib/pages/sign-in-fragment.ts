// The contract between the server and the static sign-in page, `/indieauth/sign-in/#<fragment>`
// (a fragment never reaches a server log or a Referer header): the signed request and why the
// person is back, if they are. What the page offers travels inside the signed request, so nothing
// added to the address can change it; the approve step checks everything again anyway.
import type { SignInFailure } from "./sign-in-failures.ts";
import { SIGN_IN_FAILURES } from "./sign-in-failures.ts";
import type { ClientDisplay, ClientRead, KeyAuthentication } from "../core/client-shape.ts";
import { shownUrl } from "../core/urls.ts";

/** The validated authorization request, as signed into the request object by the server
 * (protocol/request-object.ts) and shown by the page. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scopes: string[];
  /** The `me` the client sent, when it is not the owner's profile URL. */
  meMismatch?: string;
  /** The protected resource the token is to be for (RFC 8707), exactly as the client sent it. */
  resource?: string;
  /** The scopes taken from the resource's own metadata because the app named none (RFC 6749
   * 3.3): the page ticks them by default. */
  defaultScopes?: string[];
  /** The request's OIDC `prompt`: signed in, so the approve step enforces `login` whatever the
   * page does (GET /auth answers `none` itself). */
  prompt?: PromptValue[];
  client: ClientDisplay;
  /** What the server read to know the app (set by the server only; absent: nothing). */
  clientRead?: ClientRead;
  /** The client's document declared private_key_jwt (and where its keys are). */
  authentication?: KeyAuthentication;
  /** The client's document could not be read (too slow, a network error): its code is redeemed
   * only once it is, as it declares (protocol/unread-document.ts). */
  documentUnread?: true;
  /** The app's logo at its own URL: kept for the owner's console once approved; `client`
   * holds this server's address for it (GET /auth/logo), which is all the sign-in page loads. */
  unshownLogoUri?: string;
}

/** What a request's prompt asks of this server (protocol/prompt.ts reads it), carried in the
 * signed request. */
export type PromptValue = "none" | "login" | "consent";

/** Why the person is back at the page. */
export type SignInProblem = SignInFailure | "decision" | "session" | "confirm";

export const SIGN_IN_PROBLEMS: Readonly<Record<SignInProblem, string>> = {
  ...Object.fromEntries(Object.entries(SIGN_IN_FAILURES).map(([failure, words]) => [failure, words.shown])),
  decision: "Choose Approve or Deny.",
  session: "You are no longer signed in on this device. Enter your password to approve.",
  confirm: "Approving this app needs your password or a passkey this time.",
} as Record<SignInProblem, string>;

/** Why a signed-in owner is still asked for the password or a passkey (owner/approval-policy.ts):
 * never approved that way before, a shared origin, prompt=login, an app every user of a platform
 * signs in as, or a registered app answered at a web address or an app link (RFC 8252 8.6). */
export type ConfirmReason = "new-app" | "shared-origin" | "login" | "shared-app" | "registered-app";

/** The page's note for each reason (site/templates/sign-in.liquid). */
export const CONFIRM_NOTES: Readonly<Record<ConfirmReason, string>> = {
  "new-app": "confirm-app-note",
  "shared-origin": "confirm-site-note",
  login: "confirm-login-note",
  "shared-app": "confirm-shared-note",
  "registered-app": "confirm-registered-note",
};

/** What the page offers: Approve alone with a live session that may approve this app; else
 * the password, a passkey, or both. Signed into the request by the server. */
export type SignInOffer =
  { session: true } | { session: false; passkey: boolean; password: boolean; signedIn?: ConfirmReason };

/** Offered when a request carries no offer: the password, as a signed-out owner sees it. */
const PASSWORD_OFFER: SignInOffer = { session: false, passkey: false, password: true };

/** The offer as signed into a request; anything else reads as the password offer. */
export function readOffer(value: unknown): SignInOffer {
  if (typeof value !== "object" || value === null) return PASSWORD_OFFER;
  const offer = value as Record<string, unknown>;
  if (offer.session === true) return { session: true };
  const read: SignInOffer = { session: false, passkey: offer.passkey === true, password: offer.password !== false };
  if (typeof offer.signedIn === "string" && Object.hasOwn(CONFIRM_NOTES, offer.signedIn))
    read.signedIn = offer.signedIn as ConfirmReason;
  return read;
}

interface SignInFragment {
  request: string;
  problem?: SignInProblem;
}

export function writeSignInFragment(fragment: SignInFragment): string {
  let text = `request=${fragment.request}`;
  if (fragment.problem) text += `&error=${encodeURIComponent(fragment.problem)}`;
  return text;
}

function isProblem(value: string | null): value is SignInProblem {
  return value !== null && Object.hasOwn(SIGN_IN_PROBLEMS, value);
}

/** The fragment as the page reads it; an unknown problem reads as "unknown". */
export function readSignInFragment(hash: string): SignInFragment & { unknownProblem: boolean } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const problem = params.get("error");
  const fragment: SignInFragment & { unknownProblem: boolean } = {
    request: params.get("request") ?? "",
    unknownProblem: problem !== null && !isProblem(problem),
  };
  if (isProblem(problem)) fragment.problem = problem;
  return fragment;
}

/** What the page shows of the request, and what it offers. */
type ShownRequest = Pick<
  AuthorizationRequest,
  "clientId" | "redirectUri" | "scopes" | "meMismatch" | "resource" | "client" | "defaultScopes"
> & {
  offer: SignInOffer;
  /** The resource's host, whole: the shown address may be cut short inside it. */
  resourceHost?: string;
};

/** The signed request's payload, read for display only (the server checks the signature). */
export function shownRequest(token: string): ShownRequest | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const bytes = Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof value !== "object" || value === null) return null;
    const request = value as Partial<Omit<ShownRequest, "offer">> & { offer?: unknown };
    if (
      typeof request.clientId !== "string" ||
      typeof request.redirectUri !== "string" ||
      !Array.isArray(request.scopes)
    )
      return null;
    const shown: ShownRequest = {
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      client: request.client ?? {},
      offer: readOffer(request.offer),
    };
    if (Array.isArray(request.defaultScopes))
      shown.defaultScopes = request.defaultScopes.filter((s) => typeof s === "string");
    // Shown only as a short parsed URL, whatever the request carries.
    const me = typeof request.meMismatch === "string" ? shownUrl(request.meMismatch) : undefined;
    if (me !== undefined) shown.meMismatch = me;
    const resource = typeof request.resource === "string" ? shownUrl(request.resource) : undefined;
    if (resource !== undefined) {
      shown.resource = resource;
      shown.resourceHost = new URL(request.resource!).host;
    }
    return shown;
  } catch {
    return null;
  }
}

// The contract between the server and the static sign-in page: GET /auth and the approve step
// send the person to `/indieauth/sign-in/#<fragment>`, and the page's script reads it. The
// fragment never reaches a server log or a Referer header. It carries the signed request
// (shown by the page, checked again by the server when the form comes back) and hints of what
// to offer; the hints are only hints, since the approve step checks everything again.
import type { SignInFailure } from "../owner/sign-in-failures.ts";
import { SIGN_IN_FAILURES } from "../owner/sign-in-failures.ts";
import type { AuthorizationRequest } from "../protocol/request-object.ts";
import { shownUrl } from "../protocol/urls.ts";

/** Why the person is back at the page. */
export type SignInProblem = SignInFailure | "decision" | "session";

export const SIGN_IN_PROBLEMS: Readonly<Record<SignInProblem, string>> = {
  ...Object.fromEntries(Object.entries(SIGN_IN_FAILURES).map(([failure, words]) => [failure, words.shown])),
  decision: "Choose Approve or Deny.",
  session: "You are no longer signed in on this device. Enter your password to approve.",
} as Record<SignInProblem, string>;

/** What the page offers: Approve alone with a live session on this device; else the
 * password, a passkey, or both. */
export type SignInOffer = { session: true } | { session: false; passkey: boolean; password: boolean };

interface SignInFragment {
  /** The signed authorization request (a JWT). */
  request: string;
  offer: SignInOffer;
  problem?: SignInProblem;
}

export function writeSignInFragment(fragment: SignInFragment): string {
  const { offer } = fragment;
  let text = `request=${fragment.request}`;
  if (offer.session) text += "&session=1";
  else {
    if (offer.passkey) text += "&passkey=1";
    if (!offer.password) text += "&password=off";
  }
  if (fragment.problem) text += `&error=${encodeURIComponent(fragment.problem)}`;
  return text;
}

function isProblem(value: string | null): value is SignInProblem {
  return value !== null && Object.hasOwn(SIGN_IN_PROBLEMS, value);
}

/** The fragment as the page reads it; an unknown problem reads as "unknown". */
export function readSignInFragment(hash: string): SignInFragment & { unknownProblem: boolean } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const offer: SignInOffer =
    params.get("session") === "1" ? { session: true } : { session: false, passkey: params.get("passkey") === "1", password: params.get("password") !== "off" };
  const problem = params.get("error");
  const fragment: SignInFragment & { unknownProblem: boolean } = { request: params.get("request") ?? "", offer, unknownProblem: problem !== null && !isProblem(problem) };
  if (isProblem(problem)) fragment.problem = problem;
  return fragment;
}

/** What the page shows of the request. */
type ShownRequest = Pick<AuthorizationRequest, "clientId" | "redirectUri" | "scopes" | "meMismatch" | "client">;

/** The signed request's payload, read for display only (the server checks the signature). */
export function shownRequest(token: string): ShownRequest | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const bytes = Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof value !== "object" || value === null) return null;
    const request = value as Partial<ShownRequest>;
    if (typeof request.clientId !== "string" || typeof request.redirectUri !== "string" || !Array.isArray(request.scopes)) return null;
    const shown: ShownRequest = { clientId: request.clientId, redirectUri: request.redirectUri, scopes: request.scopes, client: request.client ?? {} };
    // Shown only as a short parsed URL, whatever the request carries.
    const me = typeof request.meMismatch === "string" ? shownUrl(request.meMismatch) : undefined;
    if (me !== undefined) shown.meMismatch = me;
    return shown;
  } catch {
    return null;
  }
}

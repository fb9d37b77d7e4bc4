// The validated authorization request travels from GET /auth, through the static sign-in
// page, to the approve step as a signed JWT of its own type: the page can show it, but any
// change to it is noticed, and it cannot be mistaken for any other token this server makes.
import type { ClientDisplay } from "../clients/client-display.ts";
import { signTyped, verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";

export const REQUEST_OBJECT_TYPE = "indieauth-request+jwt";
const REQUEST_OBJECT_TTL_SECONDS = 15 * 60;
/** The longest signed request the approve step reads (it travels in the sign-in page's URL
 * fragment and back in its form). GET /auth refuses to make a longer one. */
export const MAX_REQUEST_OBJECT_LENGTH = 32_768;

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scopes: string[];
  /** The `me` the client sent, when it is not the owner's profile URL. */
  meMismatch?: string;
  client: ClientDisplay;
}

type RequestClaims = AuthorizationRequest;

function requestObjectKind(key: Uint8Array, issuer: string): JwtKind {
  return { key, issuer, typ: REQUEST_OBJECT_TYPE, audience: `${issuer}auth/approve` };
}

export function signRequest(request: AuthorizationRequest, key: Uint8Array, issuer: string, now: number): Promise<string> {
  return signTyped({ ...request }, requestObjectKind(key, issuer), now, now + REQUEST_OBJECT_TTL_SECONDS * 1000);
}

/** The request, or null when the signature, type, audience or expiry is wrong. */
export async function verifyRequest(token: string, key: Uint8Array, issuer: string, now: number): Promise<AuthorizationRequest | null> {
  const payload = await verifyTyped<RequestClaims>(token, requestObjectKind(key, issuer), now, MAX_REQUEST_OBJECT_LENGTH);
  if (!payload) return null;
  const { clientId, redirectUri, state, codeChallenge, scopes, meMismatch, client } = payload;
  if (typeof clientId !== "string" || typeof redirectUri !== "string" || typeof state !== "string" || typeof codeChallenge !== "string" || !Array.isArray(scopes)) {
    return null;
  }
  const request: AuthorizationRequest = { clientId, redirectUri, state, codeChallenge, scopes, client: client ?? {} };
  if (typeof meMismatch === "string") request.meMismatch = meMismatch;
  return request;
}

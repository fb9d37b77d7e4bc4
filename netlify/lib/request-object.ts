// The validated authorization request travels from GET /auth, through the static sign-in
// page, to the approve step as a signed JWT of its own type: the page can show it, but any
// change to it is noticed, and it cannot be mistaken for any other token this server makes.
import { SignJWT, jwtVerify } from "jose";
import type { ClientInfo } from "./clients/client-info.ts";

export const REQUEST_OBJECT_TYPE = "indieauth-request+jwt";
export const REQUEST_OBJECT_TTL_SECONDS = 15 * 60;

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scopes: string[];
  /** The `me` the client sent, when it is not the owner's profile URL. */
  meMismatch?: string;
  client: { name?: string; logoUri?: string; uri?: string };
}

interface RequestClaims extends AuthorizationRequest {
  iat: number;
  exp: number;
}

export function clientDisplay(info: ClientInfo): AuthorizationRequest["client"] {
  const display: AuthorizationRequest["client"] = {};
  if (info.name) display.name = info.name;
  if (info.logoUri) display.logoUri = info.logoUri;
  if (info.uri) display.uri = info.uri;
  return display;
}

export async function signRequest(request: AuthorizationRequest, key: Uint8Array, issuer: string, now: number): Promise<string> {
  const iat = Math.floor(now / 1000);
  return new SignJWT({ ...request })
    .setProtectedHeader({ alg: "HS256", typ: REQUEST_OBJECT_TYPE })
    .setIssuer(issuer)
    .setAudience(`${issuer}auth/approve`)
    .setIssuedAt(iat)
    .setExpirationTime(iat + REQUEST_OBJECT_TTL_SECONDS)
    .sign(key);
}

/** The request, or null when the signature, type, audience or expiry is wrong. */
export async function verifyRequest(token: string, key: Uint8Array, issuer: string, now: number): Promise<AuthorizationRequest | null> {
  if (token.length > 16_384) return null;
  try {
    const { payload } = await jwtVerify<RequestClaims>(token, key, {
      algorithms: ["HS256"],
      typ: REQUEST_OBJECT_TYPE,
      issuer,
      audience: `${issuer}auth/approve`,
      currentDate: new Date(now),
      requiredClaims: ["exp", "iat"],
    });
    const { clientId, redirectUri, state, codeChallenge, scopes, meMismatch, client } = payload;
    if (typeof clientId !== "string" || typeof redirectUri !== "string" || typeof state !== "string" || typeof codeChallenge !== "string" || !Array.isArray(scopes)) {
      return null;
    }
    const request: AuthorizationRequest = { clientId, redirectUri, state, codeChallenge, scopes, client: client ?? {} };
    if (typeof meMismatch === "string") request.meMismatch = meMismatch;
    return request;
  } catch {
    return null;
  }
}

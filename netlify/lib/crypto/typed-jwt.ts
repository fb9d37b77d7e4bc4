// The server's signed objects (the authorization request the sign-in page carries, the
// owner's session cookie, passkey challenge tickets) are HS256 JWTs, each with its own type,
// audience and HKDF-derived key, so that none of them can pass for another.
// jose is loaded with the first signature or verification: requests that need neither (most of
// what the account and approve functions refuse, every preflight) and cold starts skip it.
import type { JWTPayload } from "jose";
import { loadOnce } from "../core/load-once.ts";

// Its own entry points for what is used here: a dynamic import is not tree-shaken, and the
// whole of jose would add ~45 KB to the functions that sign.
const joseSign = loadOnce(() => import("jose/jwt/sign"));
const joseVerify = loadOnce(() => import("jose/jwt/verify"));

export interface JwtKind {
  key: Uint8Array;
  issuer: string;
  /** The `typ` header, e.g. "indieauth-session+jwt". */
  typ: string;
  audience: string;
}

/** Times in milliseconds; the JWT carries them in seconds. */
export async function signTyped(
  claims: Record<string, unknown>,
  kind: JwtKind,
  issuedAt: number,
  expiresAt: number,
): Promise<string> {
  const { SignJWT } = await joseSign();
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256", typ: kind.typ })
    .setIssuer(kind.issuer)
    .setAudience(kind.audience)
    .setIssuedAt(Math.floor(issuedAt / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(kind.key);
}

/** The claims, or null when the signature, type, issuer, audience or expiry is wrong, or the
 * token is longer than anything this server makes. */
export async function verifyTyped<T extends object>(
  token: string,
  kind: JwtKind,
  now: number,
  maxLength = 4096,
): Promise<(Partial<T> & JWTPayload) | null> {
  if (token.length > maxLength) return null;
  // Loaded outside the try: a failure to load is the server's, never a "bad token".
  const { jwtVerify } = await joseVerify();
  try {
    const { payload } = await jwtVerify<Partial<T>>(token, kind.key, {
      algorithms: ["HS256"],
      typ: kind.typ,
      issuer: kind.issuer,
      audience: kind.audience,
      currentDate: new Date(now),
      requiredClaims: ["exp", "iat"],
    });
    return payload;
  } catch {
    return null;
  }
}

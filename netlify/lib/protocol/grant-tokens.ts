// Access and refresh tokens. Each names its grant and carries 256 random bits:
//   iat_<grant id>.<secret>   irt_<grant id>.<secret>
// The grant record keeps only the token's hash, so a token is checked with one round trip (its
// grant) and a copy of the store yields no usable token. The prefix types the token: a code,
// an access token and a refresh token can never stand in for one another.
import { randomBytes } from "node:crypto";
import { constantTimeEqual, secretHash } from "../crypto/secrets.ts";

export type TokenKind = "access" | "refresh";

const PREFIX: Record<TokenKind, string> = { access: "iat_", refresh: "irt_" };
const SHAPE = /^(iat|irt)_([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

export function newGrantId(random: (size: number) => Buffer = randomBytes): string {
  return random(16).toString("base64url");
}

export function newGrantToken(kind: TokenKind, grantId: string, random: (size: number) => Buffer = randomBytes): string {
  return `${PREFIX[kind]}${grantId}.${random(32).toString("base64url")}`;
}

/** The grant a token names, if the token has the shape of that kind; null for anything else. */
export function grantIdOf(token: string, kind: TokenKind): string | null {
  const match = SHAPE.exec(token);
  if (!match || `${match[1]}_` !== PREFIX[kind]) return null;
  return match[2]!;
}

/** Which kind a token claims to be, by its prefix. */
export function tokenKindOf(token: string): TokenKind | null {
  if (grantIdOf(token, "access")) return "access";
  if (grantIdOf(token, "refresh")) return "refresh";
  return null;
}

export const tokenHash = secretHash;

export function tokenMatches(token: string, storedHash: string): boolean {
  return constantTimeEqual(tokenHash(token), storedHash);
}

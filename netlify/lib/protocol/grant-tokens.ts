// Access and refresh tokens: `iat_<grant id>.<secret>` and `irt_<grant id>.<secret>`, the grant
// keeping only their hashes; the prefix types a token, so no kind stands in for another. A
// refresh token's 32 bytes are its generation, 16 random bytes and a tag (HMAC under a key from
// SECRET), so a retired one is recognised without storing it; the tag is no credential (only the
// current token's hash refreshes). See docs/security.md ("Refresh tokens rotate").
import { createHmac, randomBytes } from "node:crypto";
import { constantTimeEqual, secretHash } from "../crypto/secrets.ts";

export type TokenKind = "access" | "refresh";

const PREFIX: Record<TokenKind, string> = { access: "iat_", refresh: "irt_" };
const SHAPE = /^(iat|irt)_([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
const NONCE_BYTES = 16;
const TAG_BYTES = 12;

export function newGrantId(): string {
  return randomBytes(16).toString("base64url");
}

/** A token of 256 random bits: an access token (a refresh token's are its generation and tag). */
export function newGrantToken(kind: TokenKind, grantId: string): string {
  return `${PREFIX[kind]}${grantId}.${randomBytes(32).toString("base64url")}`;
}

/** The 43 characters after a refresh token's grant id: generation, random bytes, tag. */
function refreshSecret(key: Uint8Array, grantId: string, generation: number, nonce: Buffer): string {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(generation);
  const tag = createHmac("sha256", key)
    .update(`irt\u0000${grantId}\u0000`)
    .update(head)
    .update(nonce)
    .digest()
    .subarray(0, TAG_BYTES);
  return Buffer.concat([head, nonce, tag]).toString("base64url");
}

/** A refresh token of this generation of its grant (see above). */
export function newRefreshToken(grantId: string, generation: number, key: Uint8Array): string {
  return `${PREFIX.refresh}${grantId}.${refreshSecret(key, grantId, generation, randomBytes(NONCE_BYTES))}`;
}

/** The generation of a refresh token this server issued (its tag checks out, in constant
 * time), or null for anything else: a forged or altered token. */
function refreshGenerationOf(token: string, key: Uint8Array): number | null {
  const match = SHAPE.exec(token);
  if (!match || match[1] !== "irt") return null;
  const bytes = Buffer.from(match[3]!, "base64url");
  const generation = bytes.readUInt32BE(0);
  const expected = refreshSecret(key, match[2]!, generation, bytes.subarray(4, 4 + NONCE_BYTES));
  return constantTimeEqual(expected, match[3]!) ? generation : null;
}

/** Whether a refresh token that is not its grant's current one is one the grant had before: a
 * tag of this server for an earlier generation than the current token's. */
export function isRetiredRefreshToken(token: string, current: number, key: Uint8Array): boolean {
  const generation = refreshGenerationOf(token, key);
  return generation !== null && generation < current;
}

/** A token as its grant keeps it: the hash, never the token. */
export interface IssuedToken {
  hash: string;
  issuedAt: number;
  expiresAt: number;
}

export interface IssuedRefreshToken extends IssuedToken {
  generation: number;
}

/** The lifetimes, and the key of refresh tokens' tags (the config passes as it is). */
export interface TokenSettings {
  accessTokenTtlMs: number;
  refreshTokenTtlMs: number;
  keys: { refreshToken: Uint8Array };
}

/** A new access token and a refresh token of this generation, and what their grant keeps. */
export function mintTokens(
  grantId: string,
  now: number,
  ttl: TokenSettings,
  generation: number,
): { accessToken: string; refreshToken: string; access: IssuedToken; refresh: IssuedRefreshToken } {
  const accessToken = newGrantToken("access", grantId);
  const refreshToken = newRefreshToken(grantId, generation, ttl.keys.refreshToken);
  return {
    accessToken,
    refreshToken,
    access: { hash: secretHash(accessToken), issuedAt: now, expiresAt: now + ttl.accessTokenTtlMs },
    refresh: { hash: secretHash(refreshToken), issuedAt: now, expiresAt: now + ttl.refreshTokenTtlMs, generation },
  };
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

export function tokenMatches(token: string, storedHash: string): boolean {
  return constantTimeEqual(secretHash(token), storedHash);
}

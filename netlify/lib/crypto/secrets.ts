// Secrets, their stored hashes, constant-time comparison and key derivation.
import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/** Every secret this server hands out carries its type in a prefix, and every lookup checks it,
 * so that a code can never be used as a token nor a token as a code. (Access and refresh
 * tokens also name their grant: see grant-tokens.ts.) */
const SECRET_PREFIX = {
  code: "ic_",
} as const;
type SecretKind = keyof typeof SECRET_PREFIX;

/** A secret of the kind derived from a message (HMAC-SHA-256, 256 bits): the same message
 * always gives the same secret, and nobody without the key can compute it. */
export function derivedSecret(kind: SecretKind, key: Uint8Array, message: string): string {
  return SECRET_PREFIX[kind] + createHmac("sha256", key).update(message, "utf8").digest("base64url");
}

export function isSecretOfKind(value: string, kind: SecretKind): boolean {
  return value.startsWith(SECRET_PREFIX[kind]) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(SECRET_PREFIX[kind].length));
}

/** What the store keeps instead of the secret: a copy of the store yields no usable secret. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

/** Constant-time string equality (the length is not secret; contents are). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** Keys for each purpose come from SECRET through HKDF; SECRET itself is never used as a key. */
export function deriveKey(secret: string, purpose: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", secret, "indieauth-netlify", purpose, 32));
}

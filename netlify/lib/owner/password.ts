// The owner's password: scrypt hashes made by `npm run hash-password`, and bcrypt hashes as
// made by htpasswd or serverless-indieauth (PASSWORD_SECRET), so their users move over unchanged.
// The hash's format (and its parsing) is core/password-hash.ts.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { writeScryptHash, type PasswordHash } from "../core/password-hash.ts";

const SCRYPT_DEFAULTS = { logN: 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_LENGTH,
      { N, r, p, maxmem: 256 * N * r + 16 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** A new scrypt hash of the password, in the format core/password-hash.ts reads. */
export async function hashPassword(password: string, random: (size: number) => Buffer = randomBytes): Promise<string> {
  const { logN, r, p } = SCRYPT_DEFAULTS;
  const salt = random(16);
  const key = await scryptAsync(password, salt, logN, r, p);
  return writeScryptHash({ kind: "scrypt", logN, r, p, salt, key });
}

/** Constant-time: scrypt keys are compared with timingSafeEqual; bcryptjs compares in constant time. */
export async function verifyPassword(password: string, hash: PasswordHash): Promise<boolean> {
  if (password.length === 0 || password.length > 1024) return false;
  if (hash.kind === "scrypt") {
    const key = await scryptAsync(password, hash.salt, hash.logN, hash.r, hash.p);
    return key.length === hash.key.length && timingSafeEqual(key, hash.key);
  }
  const bcrypt = await import("bcryptjs");
  return bcrypt.compare(password, hash.hash);
}

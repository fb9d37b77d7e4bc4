// The owner's password: scrypt hashes made by `npm run hash-password`, and bcrypt hashes as
// made by htpasswd or serverless-indieauth (PASSWORD_SECRET), so their users move over unchanged.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

export type PasswordHash =
  | { kind: "scrypt"; logN: number; r: number; p: number; salt: Buffer; key: Buffer }
  | { kind: "bcrypt"; hash: string };

const SCRYPT_DEFAULTS = { logN: 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const PHC_SCRYPT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{43})$/;
const BCRYPT = /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/;

function scryptAsync(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r + 16 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** PHC string: $scrypt$ln=15,r=8,p=1$<salt>$<key>, base64 without padding. */
export async function hashPassword(password: string, random: (size: number) => Buffer = randomBytes): Promise<string> {
  const { logN, r, p } = SCRYPT_DEFAULTS;
  const salt = random(16);
  const key = await scryptAsync(password, salt, logN, r, p);
  const b64 = (b: Buffer) => b.toString("base64").replace(/=+$/, "");
  return `$scrypt$ln=${logN},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
}

/** Parses PASSWORD_HASH or PASSWORD_SECRET; the cost bounds keep a typo from making every
 * sign-in take minutes. */
export function parsePasswordHash(value: string): PasswordHash | { error: string } {
  const trimmed = value.trim();
  const scryptMatch = PHC_SCRYPT.exec(trimmed);
  if (scryptMatch) {
    const [, ln, r, p, salt, key] = scryptMatch as unknown as [string, string, string, string, string, string];
    const logN = Number(ln);
    if (logN < 14 || logN > 20 || Number(r) < 1 || Number(r) > 16 || Number(p) < 1 || Number(p) > 4) {
      return { error: "has scrypt parameters outside the accepted range (ln 14-20, r 1-16, p 1-4)" };
    }
    return { kind: "scrypt", logN, r: Number(r), p: Number(p), salt: Buffer.from(salt, "base64"), key: Buffer.from(key, "base64") };
  }
  if (BCRYPT.test(trimmed)) return { kind: "bcrypt", hash: trimmed };
  return { error: "is not a hash this server can read (a scrypt hash from hash-password, or a bcrypt hash)" };
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

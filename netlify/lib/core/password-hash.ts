// The owner's password hash as written in PASSWORD_HASH or PASSWORD_SECRET: a scrypt PHC string
// made by `npm run hash-password`, or a bcrypt hash as made by htpasswd or serverless-indieauth.
// Only the format lives here (config reads it at start-up); owner/password.ts hashes and verifies.

export type PasswordHash =
  { kind: "scrypt"; logN: number; r: number; p: number; salt: Buffer; key: Buffer } | { kind: "bcrypt"; hash: string };

const PHC_SCRYPT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{43})$/;
const BCRYPT = /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** PHC string: $scrypt$ln=15,r=8,p=1$<salt>$<key>, base64 without padding. */
export function writeScryptHash({ logN, r, p, salt, key }: Extract<PasswordHash, { kind: "scrypt" }>): string {
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
    return {
      kind: "scrypt",
      logN,
      r: Number(r),
      p: Number(p),
      salt: Buffer.from(salt, "base64"),
      key: Buffer.from(key, "base64"),
    };
  }
  if (BCRYPT.test(trimmed)) return { kind: "bcrypt", hash: trimmed };
  return { error: "is not a hash this server can read (a scrypt hash from hash-password, or a bcrypt hash)" };
}

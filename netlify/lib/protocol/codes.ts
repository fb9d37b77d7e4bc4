// Authorization codes: 256 random bits, stored only as a hash, ten minutes, single use.
import { newSecret, secretHash } from "../crypto/secrets.ts";
import type { KeyValueStore } from "../platform/store.ts";

export interface ClientDisplay {
  name?: string;
  logoUri?: string;
}

export const CODE_TTL_MS = 10 * 60 * 1000;

export interface CodeRecord {
  kind: "authorization_code";
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: "S256";
  scopes: string[];
  me: string;
  /** The app's name and logo as it claimed them at sign-in, for the owner's console. */
  client?: ClientDisplay;
  issuedAt: number;
  expiresAt: number;
}

export type NewCode = Omit<CodeRecord, "kind" | "issuedAt" | "expiresAt" | "codeChallengeMethod">;

export function codeKey(code: string): string {
  return `codes/${secretHash(code)}`;
}

export async function issueCode(
  store: KeyValueStore,
  input: NewCode,
  now: number,
  random?: (size: number) => Buffer,
): Promise<string> {
  const code = newSecret("code", random);
  const record: CodeRecord = {
    kind: "authorization_code",
    ...input,
    codeChallengeMethod: "S256",
    issuedAt: now,
    expiresAt: now + CODE_TTL_MS,
  };
  // onlyIfNew: a code is written once and never overwritten, even on a (2^-256) collision.
  if (!(await store.setIfNew(codeKey(code), record))) throw new Error("authorization code collision");
  return code;
}

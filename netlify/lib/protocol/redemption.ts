// Redeeming an authorization code: the one core shared by POST /auth and POST /token.
// The code is consumed by a single conditional write before anything else is checked, so a
// code can never be tried twice, even with a wrong verifier the first time.
import { codeKey, type CodeRecord } from "./codes.ts";
import { InvalidGrant, InvalidRequest, UnsupportedGrantType } from "../errors.ts";
import { isValidCodeVerifier, verifierMatches } from "./pkce.ts";
import { isSecretOfKind, secretHash } from "../crypto/secrets.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { canonicalUrl } from "./urls.ts";
import { revokeGrant } from "./grants.ts";

export interface RedemptionInput {
  grantType: string | null;
  code: string | null;
  clientId: string | null;
  redirectUri: string | null;
  codeVerifier: string | null;
}

/** Written, only if new, when a code is used: the second writer learns it came too late,
 * and which grant the first one created, so that it can revoke it (RFC 6749 4.1.2). */
export interface CodeUse {
  usedAt: number;
  expiresAt: number;
  grantId?: string;
}

export const usedCodeKey = (code: string) => `used-codes/${secretHash(code)}`;

export function redemptionInput(form: URLSearchParams): RedemptionInput {
  return {
    grantType: form.get("grant_type"),
    code: form.get("code"),
    clientId: form.get("client_id"),
    redirectUri: form.get("redirect_uri"),
    codeVerifier: form.get("code_verifier"),
  };
}

/** Checks the request, consumes the code and returns what it was issued for. */
export async function redeemCode(
  store: KeyValueStore,
  input: RedemptionInput,
  now: number,
  options: { grantTypeOptional: boolean; grantId?: string },
): Promise<CodeRecord> {
  if (input.grantType === null || input.grantType === "") {
    if (!options.grantTypeOptional) throw new InvalidRequest("grant_type is required.");
  } else if (input.grantType !== "authorization_code") {
    throw new UnsupportedGrantType(`grant_type ${input.grantType} is not supported here.`);
  }
  for (const [name, value] of [["code", input.code], ["client_id", input.clientId], ["redirect_uri", input.redirectUri]] as const) {
    if (value === null || value === "") throw new InvalidRequest(`${name} is required.`);
  }
  const code = input.code!;
  if (input.codeVerifier !== null && !isValidCodeVerifier(input.codeVerifier)) {
    throw new InvalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.");
  }
  // A value that is not a code (an access token, a refresh token, garbage) is never looked up.
  if (!isSecretOfKind(code, "code")) throw new InvalidGrant("The authorization code is not valid.");

  const record = await store.get<CodeRecord>(codeKey(code));
  if (!record || record.kind !== "authorization_code") throw new InvalidGrant("The authorization code is not valid.");
  const use: CodeUse = { usedAt: now, expiresAt: record.expiresAt };
  if (options.grantId) use.grantId = options.grantId;
  if (!(await store.setIfNew(usedCodeKey(code), use))) {
    // A replay: whoever redeemed it first may have been an attacker, or may be the victim of
    // one. Either way, what the code gave is withdrawn.
    const first = await store.get<CodeUse>(usedCodeKey(code));
    if (first?.grantId) await revokeGrant(store, first.grantId, now);
    throw new InvalidGrant("The authorization code has already been used.");
  }
  if (record.expiresAt <= now) throw new InvalidGrant("The authorization code has expired.");
  if (canonicalUrl(input.clientId!) !== record.clientId) throw new InvalidGrant("client_id does not match the authorization request.");
  if (input.redirectUri !== record.redirectUri) throw new InvalidGrant("redirect_uri does not match the authorization request.");
  if (input.codeVerifier === null || input.codeVerifier === "") throw new InvalidRequest("code_verifier is required (PKCE).");
  if (!verifierMatches(input.codeVerifier, record.codeChallenge)) throw new InvalidGrant("code_verifier does not match the code_challenge.");
  return record;
}

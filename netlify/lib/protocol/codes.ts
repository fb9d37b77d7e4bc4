// Authorization codes, from issue to consumption: 256 random bits, stored only as a hash, ten
// minutes, single use. Redeeming one (POST /auth and POST /token share this) consumes it with a
// single conditional write before anything else about it is checked, so a code can never be
// tried twice, even with a wrong verifier the first time. The consumption allocates the id of
// the grant a token redemption will create and writes it into the code's used marker: a replay
// finds it there and revokes that grant (RFC 6749 4.1.2).
import { InvalidGrant, InvalidRequest, UnsupportedGrantType } from "../errors.ts";
import { isSecretOfKind, newSecret } from "../crypto/secrets.ts";
import { RECORDS } from "../platform/records.ts";
import type { ClientDisplay } from "../clients/client-display.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { newGrantId } from "./grant-tokens.ts";
import { CodeAlreadyUsed, revokeGrant } from "./grants.ts";
import { isValidCodeVerifier, verifierMatches } from "./pkce.ts";
import { canonicalUrl } from "./urls.ts";

const CODE_TTL_MS = 10 * 60 * 1000;

export interface CodeRecord {
  kind: "authorization_code";
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  codeChallengeMethod: "S256";
  scopes: string[];
  me: string;
  /** The protected resource the token is to be for (RFC 8707), as the request named it. */
  resource?: string;
  /** The app's name and logo as it claimed them at sign-in, for the owner's console. */
  client?: ClientDisplay;
  issuedAt: number;
  expiresAt: number;
}

type NewCode = Omit<CodeRecord, "kind" | "issuedAt" | "expiresAt" | "codeChallengeMethod">;

/** Written, only if new, when a code is consumed: a later redemption learns it came too late,
 * and which grant the first one was to create. */
interface CodeUse {
  usedAt: number;
  expiresAt: number;
  grantId: string;
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
  if (!(await store.setIfNew(RECORDS.code.key(code), record))) throw new Error("authorization code collision");
  return code;
}

interface RedemptionInput {
  grantType: string | null;
  code: string | null;
  clientId: string | null;
  redirectUri: string | null;
  codeVerifier: string | null;
}

export function redemptionInput(form: URLSearchParams): RedemptionInput {
  return {
    grantType: form.get("grant_type"),
    code: form.get("code"),
    clientId: form.get("client_id"),
    redirectUri: form.get("redirect_uri"),
    codeVerifier: form.get("code_verifier"),
  };
}

interface RedeemedCode {
  record: CodeRecord;
  /** The id for the grant this redemption may create (POST /auth creates none). */
  grantId: string;
}

interface RedemptionOptions {
  grantTypeOptional: boolean;
  /** Refusals that depend only on what the code was issued for (it has no scope, say), made
   * before the code is used up: they reveal nothing a guess could exploit, and the client can
   * still redeem the code where it belongs. */
  refuseBeforeUse?: (record: CodeRecord) => void;
}

/** Checks the request, consumes the code and returns what it was issued for. */
export async function redeemCode(store: KeyValueStore, input: RedemptionInput, now: number, options: RedemptionOptions): Promise<RedeemedCode> {
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

  const record = await store.get<CodeRecord>(RECORDS.code.key(code));
  if (!record || record.kind !== "authorization_code") throw new InvalidGrant("The authorization code is not valid.");
  options.refuseBeforeUse?.(record);
  const grantId = await consume(store, code, record, now);
  if (record.expiresAt <= now) throw new InvalidGrant("The authorization code has expired.");
  if (canonicalUrl(input.clientId!) !== record.clientId) throw new InvalidGrant("client_id does not match the authorization request.");
  if (input.redirectUri !== record.redirectUri) throw new InvalidGrant("redirect_uri does not match the authorization request.");
  if (input.codeVerifier === null || input.codeVerifier === "") throw new InvalidRequest("code_verifier is required (PKCE).");
  if (!verifierMatches(input.codeVerifier, record.codeChallenge)) throw new InvalidGrant("code_verifier does not match the code_challenge.");
  return { record, grantId };
}

/** Marks the code used, with one create-if-new write, and returns the grant id it recorded.
 * A replay: whoever redeemed it first may have been an attacker, or may be the victim of one.
 * Either way, what the code gave is withdrawn. */
async function consume(store: KeyValueStore, code: string, record: CodeRecord, now: number): Promise<string> {
  const use: CodeUse = { usedAt: now, expiresAt: record.expiresAt, grantId: newGrantId() };
  if (await store.setIfNew(RECORDS.usedCode.key(code), use)) return use.grantId;
  const first = await store.get<Partial<CodeUse>>(RECORDS.usedCode.key(code));
  if (first?.grantId) await revokeGrant(store, first.grantId, now);
  throw new CodeAlreadyUsed();
}

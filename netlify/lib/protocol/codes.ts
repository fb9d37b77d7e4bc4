// Authorization codes, from issue to consumption: one per signed sign-in request, single use,
// consumed with one create-if-new write whatever the checks found, a replay revoking what the
// first use issued, and a token redemption cut short finished by its retry. See docs/security.md
// ("Codes") and docs/data-model.md.
import type { Fields } from "../core/fields.ts";
import { InvalidGrant, InvalidRequest, UnsupportedGrantType, type AnsweredError } from "../errors.ts";
import { derivedSecret, isSecretOfKind } from "../crypto/secrets.ts";
import { RECORDS } from "../platform/records.ts";
import type { ClientDisplay, KeyAuthentication } from "../core/client-shape.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { createOnce } from "../platform/create-once.ts";
import { newGrantId } from "./grant-tokens.ts";
import { CodeAlreadyUsed, revokeGrant } from "./grants.ts";
import { isPkceValue, verifierMatches } from "./pkce.ts";
import { canonicalUrl } from "../core/urls.ts";
import { CODE_TTL_MS } from "../core/policy.ts";

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
  /** false: the request asked for offline_access and the owner unticked it, so the token comes
   * without a refresh token. */
  refresh?: false;
  /** The app's name and logo as it claimed them at sign-in, for the owner's console. */
  client?: ClientDisplay;
  /** The client's document declared private_key_jwt: its redemption must be signed. */
  authentication?: KeyAuthentication;
  /** The client's document could not be read at sign-in: it is read at redemption, which
   * requires what it declares then (unread-document.ts). */
  documentUnread?: true;
  issuedAt: number;
  /** When it stops being redeemable, where that is before the record's expiry: a signed
   * request's code is kept as long as the request, so that approving it again never issues
   * another. Absent: at expiresAt. */
  validUntil?: number;
  expiresAt: number;
}

type NewCode = Omit<CodeRecord, "kind" | "issuedAt" | "validUntil" | "expiresAt" | "codeChallengeMethod">;

const validUntil = (record: Partial<CodeRecord> | null): number | undefined => record?.validUntil ?? record?.expiresAt;

/** Written, only if new, when a code is consumed: a later redemption learns it came too late,
 * and which grant the first one was to create. */
interface CodeUse {
  usedAt: number;
  expiresAt: number;
  grantId: string;
  /** A token redemption that passed every check used it: its retry may create the grant. */
  resumable?: true;
}

/** What a signed sign-in request, approved, is answered with: its code, or null when it was
 * answered before and that code has since been redeemed or has expired. */
interface RequestCode {
  code: string;
  /** Approved before (a double-click): the answer repeats the first one, and nothing else is recorded. */
  repeat: boolean;
}

/** Issues the code of a signed sign-in request (`requestId` names it, `requestExpiresAt` is when
 * it can no longer be approved), once. Approved again while its code is unused and unexpired,
 * it gets the same code (a second post of a double-click: the browser shows only the second
 * answer); after that, null: a code is never issued twice. */
export async function issueRequestCode(
  store: KeyValueStore,
  key: Uint8Array,
  request: { requestId: string; requestExpiresAt: number },
  input: NewCode,
  now: number,
): Promise<RequestCode | null> {
  const code = derivedSecret("code", key, request.requestId);
  const record: CodeRecord = {
    kind: "authorization_code",
    ...input,
    codeChallengeMethod: "S256",
    issuedAt: now,
    expiresAt: Math.max(request.requestExpiresAt, now + CODE_TTL_MS),
    validUntil: now + CODE_TTL_MS,
  };
  // One write, only if new: the request's first approval.
  if (await store.setIfNew(RECORDS.code.key(code), record)) return { code, repeat: false };
  const [first, used] = await Promise.all([
    store.get<Partial<CodeRecord>>(RECORDS.code.key(code)),
    store.get(RECORDS.usedCode.key(code)),
  ]);
  const until = validUntil(first);
  if (used !== null || !(typeof until === "number" && until > now)) return null;
  return { code, repeat: true };
}

export function redemptionInput(form: Fields<"grant_type" | "code" | "client_id" | "redirect_uri" | "code_verifier">) {
  return {
    grantType: form.get("grant_type"),
    code: form.get("code"),
    clientId: form.get("client_id"),
    redirectUri: form.get("redirect_uri"),
    codeVerifier: form.get("code_verifier"),
  };
}

type RedemptionInput = ReturnType<typeof redemptionInput>;

interface RedeemedCode {
  record: CodeRecord;
  /** The id for the grant this redemption may create (POST /auth creates none). */
  grantId: string;
  /** Until when that grant may be created (a retry of a redemption cut short: the code's end). */
  writableUntil: number;
}

interface RedemptionOptions {
  grantTypeOptional: boolean;
  /** Refusals that depend only on what the code was issued for (it has no scope, say), made
   * before the code is used up: they reveal nothing a guess could exploit, and the client can
   * still redeem the code where it belongs. */
  refuseBeforeUse?: (record: CodeRecord) => void | Promise<void>;
  /** A token redemption: one cut short after using the code up may be finished by its retry. */
  resumable?: boolean;
}

/** What is wrong with this presentation of the code, if anything (answered once it is used up). */
function refusalOf(record: CodeRecord, input: RedemptionInput, now: number): AnsweredError | null {
  if ((validUntil(record) ?? 0) <= now) return new InvalidGrant("The authorization code has expired.");
  if (canonicalUrl(input.clientId!) !== record.clientId)
    return new InvalidGrant("client_id does not match the authorization request.");
  if (input.redirectUri !== record.redirectUri)
    return new InvalidGrant("redirect_uri does not match the authorization request.");
  if (input.codeVerifier === null || input.codeVerifier === "")
    return new InvalidRequest("code_verifier is required (PKCE).");
  if (!verifierMatches(input.codeVerifier, record.codeChallenge))
    return new InvalidGrant("code_verifier does not match the code_challenge.");
  return null;
}

/** Checks the request, consumes the code and returns what it was issued for. */
export async function redeemCode(
  store: KeyValueStore,
  input: RedemptionInput,
  now: number,
  options: RedemptionOptions,
): Promise<RedeemedCode> {
  if (input.grantType === null || input.grantType === "") {
    if (!options.grantTypeOptional) throw new InvalidRequest("grant_type is required.");
  } else if (input.grantType !== "authorization_code") {
    throw new UnsupportedGrantType(`grant_type ${input.grantType} is not supported here.`);
  }
  for (const [name, value] of [
    ["code", input.code],
    ["client_id", input.clientId],
    ["redirect_uri", input.redirectUri],
  ] as const) {
    if (value === null || value === "") throw new InvalidRequest(`${name} is required.`);
  }
  const code = input.code!;
  if (input.codeVerifier !== null && !isPkceValue(input.codeVerifier)) {
    throw new InvalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.");
  }
  // A value that is not a code (an access token, a refresh token, garbage) is never looked up.
  if (!isSecretOfKind(code, "code")) throw new InvalidGrant("The authorization code is not valid.");

  const record = await store.get<CodeRecord>(RECORDS.code.key(code));
  if (record?.kind !== "authorization_code") throw new InvalidGrant("The authorization code is not valid.");
  await options.refuseBeforeUse?.(record);
  const refusal = refusalOf(record, input, now);
  const grantId = await consume(store, code, record, now, refusal === null && options.resumable === true);
  if (refusal) throw refusal;
  return { record, grantId, writableUntil: validUntil(record) ?? now };
}

/** Marks the code used, with one create-if-new write, and returns the grant id it recorded.
 * A replay: whoever redeemed it first may have been an attacker, or may be the victim of one.
 * Either way, what the code gave is withdrawn. Unless both were token redemptions that passed
 * every check (the client, or whoever holds its verifier too) and the grant does not exist:
 * the first was cut short (or is still writing it), and this one creates that same grant.
 * Only one of them can (its write is create-if-new); the other then revokes it (grants.ts). */
async function consume(
  store: KeyValueStore,
  code: string,
  record: CodeRecord,
  now: number,
  resumable: boolean,
): Promise<string> {
  const use: CodeUse = {
    usedAt: now,
    expiresAt: record.expiresAt,
    grantId: newGrantId(),
    ...(resumable ? { resumable: true as const } : {}),
  };
  // A refusal of our own write (landed, its answer lost, retried) is not a replay: the grant id
  // in the marker is one only this attempt drew.
  const isThis = (stored: Partial<CodeUse>) => stored.grantId === use.grantId;
  if (await createOnce(store, RECORDS.usedCode.key(code), use, isThis)) return use.grantId;
  const first = await store.get<Partial<CodeUse>>(RECORDS.usedCode.key(code));
  if (
    resumable &&
    first?.resumable === true &&
    typeof first.grantId === "string" &&
    (await store.get(RECORDS.grant.key(first.grantId))) === null
  )
    return first.grantId;
  if (first?.grantId) await revokeGrant(store, first.grantId, now);
  throw new CodeAlreadyUsed();
}

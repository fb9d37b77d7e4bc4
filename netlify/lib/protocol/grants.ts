// Grants: one record per approved client authorization. Its access and refresh tokens are
// checked against it, so revoking the grant kills both at once, in one write; the owner's
// revoke-all and revoke-app are moments in one record read beside it (revocations.ts). Its
// app's summary (app-summaries.ts) follows it through a change record per event (app-changes.ts),
// folded in afterwards: what the owner's console reads instead of it.
import {
  grantIdOf,
  isRetiredRefreshToken,
  mintTokens,
  tokenKindOf,
  tokenMatches,
  type IssuedRefreshToken,
  type IssuedToken,
  type TokenKind,
  type TokenSettings,
} from "./grant-tokens.ts";
import { constantTimeEqual, secretHash } from "../crypto/secrets.ts";
import type { ClientDisplay, KeyAuthentication } from "../core/client-shape.ts";
import { InvalidGrant } from "../errors.ts";
import { resourceWithin } from "./resource.ts";
import { readRevocations, revokedByOwner, type Revocations } from "./revocations.ts";
import { creationOf, recordChange, refreshOf, revocationOf } from "./app-changes.ts";
import { afterward, countChange } from "./app-summary-fold.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore, Versioned } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { createOnce } from "../platform/create-once.ts";
import type { WaitUntil } from "../platform/after-answer.ts";
import { REVOKED_RETENTION_MS } from "../core/policy.ts";

export interface GrantRecord {
  kind: "grant";
  id: string;
  clientId: string;
  me: string;
  /** The app's name and logo as it claimed them at sign-in (shown in the console). */
  client?: ClientDisplay;
  /** The client's document declared private_key_jwt: each refresh must be signed too. */
  authentication?: KeyAuthentication;
  /** What the owner approved: the ceiling for every refresh. */
  scopes: string[];
  /** The protected resource approved (RFC 8707), as the client named it: every access token of
   * the grant is for it alone (introspection's `aud`); absent: none in particular. Never changes. */
  resource?: string;
  /** The scopes of the current access token (a refresh may narrow them). */
  accessScopes: string[];
  createdAt: number;
  lastUsedAt: number;
  /** When the grant is dead anyway: the later of its tokens' expiries. */
  expiresAt: number;
  revokedAt?: number;
  access: IssuedToken;
  refresh: IssuedRefreshToken;
}

/** Written when a grant is revoked before its record existed (a replayed code racing the
 * first redemption): the first redemption's create-if-new then fails. */
interface RevokedGrant {
  kind: "revoked-grant";
  id: string;
  revokedAt: number;
  expiresAt: number;
}

type StoredGrant = GrantRecord | RevokedGrant;

const grantKey = RECORDS.grant.key;

/** A code presented again, whichever side of the race notices it: the code module, when the
 * code's used marker exists already, or createGrant, when a replay revoked the grant first. */
export class CodeAlreadyUsed extends InvalidGrant {
  constructor() {
    super("The authorization code has already been used.");
  }
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  grant: GrantRecord;
}

/** `id`: the one the code's redemption allocated (and recorded in the code's used marker). */
type NewGrant = Pick<GrantRecord, "id" | "clientId" | "me" | "scopes" | "resource" | "client" | "authentication">;

/** Creates the grant for a redeemed code, with one create-if-new write, and beside it (in the
 * same round trip) the change that counts it in its app's summary, so that an app holding a
 * token shows in the console. Throws CodeAlreadyUsed when the code was presented again before the
 * grant was written: a replay revoked it first (a tombstone), or another presentation created it
 * (then revoked here: RFC 6749 4.1.2). `writableUntil`: until when a retry of the redemption
 * may still create it (the code's end). */
export async function createGrant(
  store: KeyValueStore,
  input: NewGrant,
  now: number,
  ttl: TokenSettings,
  options: { writableUntil?: number; waitUntil?: WaitUntil } = {},
): Promise<IssuedTokens> {
  const { accessToken, refreshToken, access, refresh } = mintTokens(input.id, now, ttl, 1);
  const grant: GrantRecord = {
    kind: "grant",
    ...input,
    accessScopes: input.scopes,
    createdAt: now,
    lastUsedAt: now,
    expiresAt: Math.max(access.expiresAt, refresh.expiresAt),
    access,
    refresh,
  };
  const creation = creationOf(grant, options.writableUntil ?? now);
  const recorded = recordChange(store, "c", creation);
  recorded.catch(() => undefined); // awaited below, once the grant's write is settled
  // A write refused or failed may have landed, its answer lost: is the stored grant this one?
  const isThis = (stored: StoredGrant) =>
    stored.kind === "grant" && constantTimeEqual(stored.access.hash, grant.access.hash);
  if (!(await createOnce<StoredGrant>(store, grantKey(grant.id), grant, isThis))) {
    const stored = await store.getVersioned<StoredGrant>(grantKey(input.id));
    if (stored.value?.kind === "grant")
      await revokeGrant(store, input.id, now, { read: stored, waitUntil: options.waitUntil });
    throw new CodeAlreadyUsed();
  }
  // The grant is stored: its tokens are the client's, whatever becomes of the count (a change
  // whose write failed is written once more, after the answer).
  const retried = recorded.catch(() => recordChange(store, "c", creation));
  await afterward("count a new grant", () => countChange(store, "c", creation, now, retried), options.waitUntil);
  return { accessToken, refreshToken, grant };
}

function isLive(grant: StoredGrant | null, now: number, revocations: Revocations): grant is GrantRecord {
  return (
    grant !== null &&
    grant.kind === "grant" &&
    grant.revokedAt === undefined &&
    grant.expiresAt > now &&
    !revokedByOwner(revocations, grant.clientId, grant.createdAt)
  );
}

/** Why a token is not live. "unknown" covers a token that never was, or was replaced by a
 * refresh; "revoked" and "expired" are said only of the grant's own current token. */
export type DeadTokenReason = "malformed" | "unknown" | "revoked" | "expired";

type TokenCheck = { live: true; grant: GrantRecord } | { live: false; reason: DeadTokenReason };

/** Checks a token of this kind against its grant, with one round trip (the grant and the
 * revocations, read in parallel): live only if it is the grant's current token of that kind,
 * unexpired, and the grant is neither revoked (by itself or by the owner's moment) nor expired. */
export async function checkGrantToken(
  store: KeyValueStore,
  token: string,
  kind: TokenKind,
  now: number,
): Promise<TokenCheck> {
  const id = grantIdOf(token, kind);
  if (!id) return { live: false, reason: "malformed" };
  const [grant, revocations] = await Promise.all([store.get<StoredGrant>(grantKey(id)), readRevocations(store)]);
  if (grant === null || grant.kind !== "grant") return { live: false, reason: "unknown" };
  const current = kind === "access" ? grant.access : grant.refresh;
  // The hash first: whether a grant was revoked is told only to the holder of its token.
  if (!tokenMatches(token, current.hash)) return { live: false, reason: "unknown" };
  if (grant.revokedAt !== undefined || revokedByOwner(revocations, grant.clientId, grant.createdAt))
    return { live: false, reason: "revoked" };
  if (!isLive(grant, now, revocations) || current.expiresAt <= now) return { live: false, reason: "expired" };
  return { live: true, grant };
}

/** Tries at revoking a grant that a refresh writes between the revocation's read and its write. */
const REVOKE_TRIES = 8;

/** Revokes a grant (idempotent); a tombstone when it does not exist yet. A conditional write on
 * the grant as it is now, retried when a refresh (or the first redemption) wrote it in between:
 * a racing refresh cannot undo it, and the refreshed tokens are revoked with it. Past its tries
 * it throws (503): a revocation is never reported done undone. `read`: the grant and its version
 * as the caller just read them (not read again); `waitUntil`: the summary's update after the answer. */
export async function revokeGrant(
  store: KeyValueStore,
  id: string,
  now: number,
  { read, waitUntil }: { read?: Versioned<StoredGrant>; waitUntil?: WaitUntil } = {},
): Promise<void> {
  for (let attempt = 0; attempt < REVOKE_TRIES; attempt++) {
    if (attempt > 0) await collisionPause(attempt);
    const { value: grant, version } =
      attempt === 0 && read ? read : await store.getVersioned<StoredGrant>(grantKey(id));
    if (grant?.kind === "revoked-grant" || grant?.revokedAt !== undefined) return;
    const expiresAt = now + REVOKED_RETENTION_MS;
    const revoked: StoredGrant = grant
      ? { ...grant, revokedAt: now, expiresAt: Math.min(grant.expiresAt, expiresAt) }
      : { kind: "revoked-grant", id, revokedAt: now, expiresAt };
    if (!(await store.setIfUnchanged(grantKey(id), revoked, version))) continue;
    if (grant && grant.expiresAt > now)
      await afterward(
        "uncount a revoked grant",
        () => countChange(store, "r", revocationOf(grant, now), now),
        waitUntil,
      );
    return;
  }
  throw new Error("a grant kept changing during its revocation");
}

type RefreshOutcome =
  | { ok: true; tokens: IssuedTokens }
  | { ok: false; reason: "unknown" | "reused" | "expired" | "client" | "scope" | "conflict" }
  | { ok: false; reason: "target"; granted: string | undefined };

/** Rotates a refresh token: new access and refresh tokens of the next generation, the old
 * refresh token retired. Any retired refresh token of the grant presented again revokes it. */
export async function rotateRefreshToken(
  store: KeyValueStore,
  refreshToken: string,
  input: {
    clientId: string;
    scopes: string[] | null;
    resource?: string | undefined;
    authenticate?: (grant: GrantRecord) => Promise<void>;
    waitUntil?: WaitUntil;
  },
  now: number,
  ttl: TokenSettings,
): Promise<RefreshOutcome> {
  const id = grantIdOf(refreshToken, "refresh");
  if (!id) return { ok: false, reason: "unknown" };
  const [{ value: grant, version }, revocations] = await Promise.all([
    store.getVersioned<StoredGrant>(grantKey(id)),
    readRevocations(store),
  ]);
  if (!isLive(grant, now, revocations)) return { ok: false, reason: "unknown" };
  if (!constantTimeEqual(secretHash(refreshToken), grant.refresh.hash)) {
    if (!isRetiredRefreshToken(refreshToken, grant.refresh.generation, ttl.keys.refreshToken))
      return { ok: false, reason: "unknown" };
    await revokeGrant(store, id, now, { read: { value: grant, version }, waitUntil: input.waitUntil });
    return { ok: false, reason: "reused" };
  }
  if (grant.refresh.expiresAt <= now) return { ok: false, reason: "expired" };
  if (input.clientId !== grant.clientId) return { ok: false, reason: "client" };
  await input.authenticate?.(grant); // as its document declared (an assertion), before any write
  const scopes = input.scopes ?? grant.scopes;
  if (scopes.some((scope) => !grant.scopes.includes(scope))) return { ok: false, reason: "scope" };
  if (!resourceWithin(input.resource, grant.resource)) return { ok: false, reason: "target", granted: grant.resource };

  const minted = mintTokens(id, now, ttl, grant.refresh.generation + 1);
  const next: GrantRecord = {
    ...grant,
    accessScopes: scopes,
    lastUsedAt: now,
    access: minted.access,
    refresh: minted.refresh,
    expiresAt: Math.max(minted.access.expiresAt, minted.refresh.expiresAt),
  };
  // Two refreshes racing on production Blobs: only one write wins, the other is refused.
  if (!(await store.setIfUnchanged(grantKey(id), next, version))) return { ok: false, reason: "conflict" };
  await afterward(
    "follow a refresh",
    () => countChange(store, `g${minted.refresh.generation}`, refreshOf(grant, next.expiresAt, now), now),
    input.waitUntil,
  );
  return { ok: true, tokens: { accessToken: minted.accessToken, refreshToken: minted.refreshToken, grant: next } };
}

/** The grant a token of either kind belongs to, if the token is (or was) really its own:
 * the current access or refresh token, or a retired refresh token; with the version read, for
 * a revocation to write against. */
export async function grantOwningToken(
  store: KeyValueStore,
  token: string,
  refreshKey: Uint8Array,
): Promise<{ id: string; grant: GrantRecord; read: Versioned<StoredGrant> } | null> {
  const kind = tokenKindOf(token);
  if (!kind) return null;
  const id = grantIdOf(token, kind)!;
  const read = await store.getVersioned<StoredGrant>(grantKey(id));
  const grant = read.value;
  if (!grant || grant.kind !== "grant") return null;
  const current = constantTimeEqual(secretHash(token), kind === "access" ? grant.access.hash : grant.refresh.hash);
  return current || (kind === "refresh" && isRetiredRefreshToken(token, grant.refresh.generation, refreshKey))
    ? { id, grant, read }
    : null;
}

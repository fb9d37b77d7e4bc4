// Every kind of record the server keeps, declared once: its keys (every module builds them here),
// its expiry and how it is written (docs/data-model.md). The store refuses a key no kind owns, so
// a new kind cannot be forgotten by the sweep; and a plain set (last write wins) to a kind written
// only conditionally, so that no writer undoes another's write unseen (a refresh a revocation): at
// compile time (set takes only a PlainKey, which only plain kinds' key builders return) and at run time.
import { secretHash } from "../crypto/secrets.ts";

type WriteMode = "conditional" | "plain";

declare const plainWrites: unique symbol;
export type PlainKey = string & { readonly [plainWrites]: true };

interface RecordKind {
  /** For messages and tests. */
  readonly name: string;
  /** Every key of the kind starts with it; a permanent kind's one record is exactly at it. */
  readonly prefix: string;
  /** The field holding the expiry (ms since the epoch) that readers check and housekeeping sweeps
   * by; null for a permanent kind: one record, kept until it is deleted. */
  readonly expiresField: "expiresAt" | null;
  /** For keys that sort by age: the key order that lists the oldest first, so that a sweep can
   * stop at the first live record. */
  readonly oldestFirst?: "ascending" | "descending";
  /** A kind that years of use can fill with tens of thousands of records: housekeeping lists it
   * a shard at a time (its ids are random or hashes, so that a shard is 1/64 of it). */
  readonly sharded?: boolean;
  /** "plain" also with a plain set, only where a lost write costs a repeat at most (a cache, a
   * last-seen time, a cursor); "conditional" only with setIfNew or setIfUnchanged. */
  readonly writes: WriteMode;
}

interface SweptKind extends RecordKind {
  readonly expiresField: "expiresAt";
}

/** A kind keyed `<prefix><id>`, whose records carry `expiresAt` and are swept. */
function expiring<A extends unknown[]>(
  name: string,
  prefix: string,
  id: (...parts: A) => string,
  oldestFirst?: RecordKind["oldestFirst"],
) {
  const kind: SweptKind = {
    name,
    prefix,
    expiresField: "expiresAt",
    writes: "conditional",
    ...(oldestFirst && { oldestFirst }),
  };
  return { ...kind, key: (...parts: A): string => `${prefix}${id(...parts)}` };
}

/** A single record at `key`, kept until it is deleted. */
function permanent(name: string, key: string) {
  const kind: RecordKind = { name, prefix: key, expiresField: null, writes: "conditional" };
  return { ...kind, key: (): string => key };
}

/** A kind also written with a plain set: its keys are PlainKeys. */
function plain<K extends RecordKind, A extends unknown[]>(
  kind: K & { key: (...parts: A) => string },
): Omit<K, "key" | "writes"> & { writes: "plain"; key: (...parts: A) => PlainKey } {
  return { ...kind, writes: "plain", key: kind.key as (...parts: A) => PlainKey };
}

export const RECORDS = {
  /** An authorization code, keyed by its hash (a copy of the store yields no usable code). */
  code: expiring("authorization code", "codes/", (code: string) => secretHash(code)),
  /** Written once when a code is consumed; names the grant its redemption allocated. */
  usedCode: expiring("used code marker", "used-codes/", (code: string) => secretHash(code)),
  /** A grant (or the tombstone of one revoked before it was written), by grant id. */
  grant: { ...expiring("grant", "grants/", (grantId: string) => grantId), sharded: true },
  /** One app's summary for the owner's console, which reads these, never the grants. */
  appSummary: expiring("app summary", "apps/", (appId: string) => appId),
  /** One change to an app's summary not yet folded into it (protocol/app-changes.ts), by its own
   * id, so that a change is written once however often it is retried. */
  appChange: expiring(
    "app summary change",
    "app-changes/",
    (appId: string, changeId: string) => `${appId}/${changeId}`,
  ),
  /** When one app's access tokens were last verified (apart, so that verifying writes unread). */
  appUsage: plain(expiring("app usage", "app-usage/", (appId: string) => appId)),
  /** Revoke-all and revoke-app, as moments: every grant created at or before one is dead. */
  revocations: permanent("revocations", "owner/revocations"),
  /** The guessing throttle's counter of one address or network (at most COUNTER_CAP live). */
  throttleAddress: expiring("throttle counter by address or network", "throttle/group/", (group: string) =>
    secretHash(group),
  ),
  /** The guessing throttle's overall counter: one record. */
  throttleOverall: expiring("throttle counter overall", "throttle/global/", () => "counter", "ascending"),
  /** The guessing throttle's counter of one known device or session, by its id's hash. */
  throttleDevice: expiring("throttle counter by known device", "throttle/device/", (deviceId: string) =>
    secretHash(deviceId),
  ),
  /** How many address and network counters were written on one UTC day (the cap's census). */
  throttleCensus: expiring(
    "throttle census",
    "throttle/census/",
    (day: number) => String(day).padStart(6, "0"),
    "ascending",
  ),
  /** An owner session (the cookie carries its id). */
  session: expiring("owner session", "sessions/", (sessionId: string) => sessionId),
  /** One entry of the owner's sign-in history, in a bounded slot of its day and hour. */
  signInEvent: expiring("sign-in event", "events/", (slot: string) => slot, "descending"),
  /** How many failures of one hour found its history slots taken (sign-in-events.ts), by hour. */
  signInOverflow: expiring(
    "sign-in failures not listed",
    "events-more/",
    (hour: number) => String(hour).padStart(9, "0"),
    "ascending",
  ),
  /** A WebAuthn ticket's challenge, once used, keyed by its hash. */
  usedChallenge: expiring("used WebAuthn challenge", "webauthn-used/", (challenge: string) => secretHash(challenge)),
  /** What the owner approved for one app with the password or a passkey: a session alone may
   * approve that much again. */
  appApproval: plain(expiring("app approval", "approvals/", (clientId: string) => secretHash(clientId))),
  /** The client_ids of one registrable domain whose pages were too slow within the last minute, in
   * one of 4,096 slots, so that a flood of domains never adds records past that ceiling. */
  clientFailure: plain(
    expiring("slow client fetches", "client-failures/", (domain: string) => secretHash(domain).slice(0, 2)),
  ),
  /** A client assertion's jti, once used (RFC 7523 3), until the assertion's own expiry. */
  usedAssertion: expiring(
    "used client assertion",
    "assertions/",
    (clientId: string, jti: string) => `${secretHash(clientId).slice(0, 16)}/${secretHash(jti)}`,
  ),
  /** A client's public keys fetched from its jwks_uri (clients/jwks.ts). */
  clientKeys: plain(expiring("client keys", "client-keys/", (jwksUri: string) => secretHash(jwksUri))),
  /** An app's logo as this server fetched it (or why it was refused), in one of 256 slots. */
  clientLogo: plain(expiring("client logo", "client-logos/", (slot: string) => slot)),
  /** The owner's passkeys, all in one record; never expires. */
  passkeys: permanent("passkeys", "owner/passkeys"),
  /** When a session was last seen, apart from the record that signing out deletes. */
  sessionSeen: plain(expiring("session last seen", "session-seen/", (sessionId: string) => sessionId)),
  /** That an alert of one kind went to NOTIFY_URL, until a minute later (owner/alerts.ts). */
  alertSent: expiring("alert sent", "alerts/", (kind: string) => kind),
  /** The connection doctor's log of one client's last attempts (owner/connection-log.ts), `a/<app
   * id>` for an approved client, else `u/<slot>`, so that requests from anyone cannot grow it. */
  connectionLog: expiring("connection log", "connections/", (tierAndId: string) => tierAndId),
  /** The console's MCP server checks of one minute (owner/mcp-check-limit.ts). */
  mcpCheckCount: expiring(
    "MCP check counter",
    "mcp-checks/",
    (minute: number) => String(minute).padStart(9, "0"),
    "ascending",
  ),
  /** Where the last bounded sweep stopped, for the next run to go on from. */
  sweepCursor: plain(permanent("housekeeping cursor", "housekeeping/sweep")),
};

/** Every kind, each with its key builder (checked here: an entry without one does not compile). */
export const RECORD_KINDS: readonly (RecordKind & { key: (...parts: never[]) => string })[] = Object.values(RECORDS);

export const SWEPT_KINDS: readonly SweptKind[] = RECORD_KINDS.filter(
  <K extends RecordKind>(kind: K): kind is K & SweptKind => kind.expiresField !== null,
);

export function kindOfKey(key: string): RecordKind | undefined {
  return RECORD_KINDS.find((kind) =>
    kind.expiresField === null ? key === kind.prefix : key.startsWith(kind.prefix) && key.length > kind.prefix.length,
  );
}

/** A write to a key that no declared kind owns: a programming error, never a storage failure. */
export class UnregisteredRecord extends Error {
  constructor(key: string) {
    super(`refusing to write "${key}": no record kind is declared for it in netlify/lib/platform/records.ts`);
  }
}

/** A plain set to a key of a kind written only conditionally: a programming error, never a storage failure. */
export class ConditionalRecord extends Error {
  constructor(key: string, kind: RecordKind) {
    super(
      `refusing a plain write to "${key}": ${kind.name} records are written only conditionally (setIfNew, setIfUnchanged), as netlify/lib/platform/records.ts declares`,
    );
  }
}

/** Throws unless a declared kind owns the key and may be written so (`plain`: by a plain set). */
export function assertRegistered(key: string, write: WriteMode = "conditional"): void {
  const kind = kindOfKey(key);
  if (!kind) throw new UnregisteredRecord(key);
  if (write === "plain" && kind.writes !== "plain") throw new ConditionalRecord(key, kind);
}

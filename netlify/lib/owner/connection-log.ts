// The connection doctor's log: per client, its last attempts to connect and the step where each
// ended, tied across steps by hashes (of the PKCE challenge, the code, the grant id), never by a
// code or token itself. Bounds (docs/data-model.md, "connection log"): an approved app's record,
// by app id, up to CONNECTION_APPROVED_CEILING, and CONNECTION_SLOTS slots shared by every other
// client by its hash, so that requests from anyone only churn the slots (and an approved app's
// anonymous tier): they never push an approved app's log out, nor add records. Fed by the
// server's events after the answer; a failure never reaches the answer, a lost race is retried.
import { secretHash } from "../crypto/secrets.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore, Version } from "../platform/store.ts";
import { appIdOf } from "../protocol/revocations.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import type { Emit, ServerEvent, Subject } from "../platform/events.ts";
import { afterAnswer, type WaitUntil } from "../platform/after-answer.ts";
import type { GrantRecord } from "../protocol/grants.ts";
import { parseClientId } from "../core/urls.ts";
import {
  attemptLinks,
  latestAt,
  mergeTiers,
  NO_ATTEMPTS,
  RETENTION_MS,
  tiersOf,
  withStep,
  type AttemptTiers,
  type StepEvent,
  type StoredAttempt,
} from "./connection-attempts.ts";
import { CONNECTION_APPROVED_CEILING, CONNECTION_SLOTS } from "../core/policy.ts";

export { attemptLinks, logText, type StepEvent, type StoredStep } from "./connection-attempts.ts";

/** A client_id longer than this is not logged (no valid request has one). */
const CLIENT_ID_LIMIT = 2048;
const WRITE_TRIES = 3;

export interface ConnectionRecord extends AttemptTiers {
  kind: "connection-log";
  clientId: string;
  approved: boolean;
  expiresAt: number;
}

const approvedKey = (clientId: string) => RECORDS.connectionLog.key(`a/${appIdOf(clientId)}`);
const slotKey = (clientId: string) =>
  RECORDS.connectionLog.key(`u/${Buffer.from(secretHash(clientId), "base64url")[0]! % CONNECTION_SLOTS}`);
const APPROVED_PREFIX = RECORDS.connectionLog.key("a/");

function recordOf(value: unknown, clientId: string): ConnectionRecord | null {
  const record = value as ConnectionRecord | null;
  return record?.kind === "connection-log" && record.clientId === clientId && Array.isArray(record.attempts)
    ? record
    : null;
}

async function write(
  store: KeyValueStore,
  key: string,
  event: StepEvent,
  approved: boolean,
  first: { value: unknown; version: Version },
  earlier: AttemptTiers = NO_ATTEMPTS,
): Promise<void> {
  let current = first;
  for (let tries = 0; tries < WRITE_TRIES; tries++) {
    const previous = recordOf(current.value, event.clientId);
    const tiers = withStep(previous ? tiersOf(previous) : earlier, event);
    const record: ConnectionRecord = {
      kind: "connection-log",
      clientId: event.clientId,
      approved,
      ...tiers,
      expiresAt: latestAt(tiers) + RETENTION_MS,
    };
    if (await store.setIfUnchanged(key, record, current.version)) return;
    await collisionPause(tries + 1);
    current = await store.getVersioned(key);
  }
}

/** Adds one step to its client's log (see the bounds above). Throws on a storage failure:
 * the events' subscriber (event-subscribers.ts) never lets it reach an answer. */
export async function recordConnectionStep(store: KeyValueStore, event: StepEvent): Promise<void> {
  if (event.clientId.length > CLIENT_ID_LIMIT) return;
  const key = approvedKey(event.clientId);
  const approved = await store.getVersioned<ConnectionRecord>(key);
  if (recordOf(approved.value, event.clientId)) return write(store, key, event, true, approved);
  const slot = slotKey(event.clientId);
  if (event.approvedClient && (await store.list(APPROVED_PREFIX)).length < CONNECTION_APPROVED_CEILING) {
    // Promoted: the attempts logged in its slot so far come along. The slot keeps its copy (a
    // step written there meanwhile is not lost; the console merges the two: readConnectionLogs).
    const earlier = recordOf(await store.get(slot), event.clientId);
    return write(store, key, event, true, approved, earlier ? tiersOf(earlier) : NO_ATTEMPTS);
  }
  return write(store, slot, event, false, await store.getVersioned(slot));
}

/** The longest an answer waits for its log where the platform has no waitUntil. */
export const LOG_DEADLINE_MS = 1000;

/** The hashes that tie a subject's step to the rest of its attempt. */
function linksOf({ clientId, challenge, code, grantId }: Omit<Subject, "stage">): string[] {
  return [
    ...(challenge ? [attemptLinks.challenge(clientId, challenge)] : []),
    ...(code ? [attemptLinks.code(code)] : []),
    ...(grantId ? [attemptLinks.grant(grantId)] : []),
  ];
}

/** A client_id worth a log entry: one a sign-in could come from (what a refused request named may be anything). */
function loggable(subject: Subject): Subject | null {
  const parsed = parseClientId(subject.clientId);
  return parsed.ok ? { ...subject, clientId: parsed.url.href } : null;
}

type Steps = StepEvent[] | ((store: KeyValueStore) => Promise<StepEvent[]>);

/** The steps an event adds to its client's log, or null for an event the log does not follow:
 * a new event type must be decided here. */
function stepsOf(event: ServerEvent, at: number): Steps | null {
  const stepOf = (
    subject: Omit<Subject, "stage">,
    step: StepEvent["step"],
    ok: boolean,
    more: Pick<StepEvent, "error" | "detail" | "approvedClient"> = {},
  ): StepEvent[] => [{ clientId: subject.clientId, step, ok, at, ...more, links: linksOf(subject) }];
  switch (event.type) {
    case "document-read": {
      // For the owner's console only: a document not read now is read when the code is redeemed.
      const read = event.unread
        ? { ok: false, detail: "it could not be read just now; it is read when the code is redeemed" }
        : { ok: true, ...(event.clientName ? { detail: `it calls itself ${event.clientName}` } : {}) };
      return [{ clientId: event.clientId, step: "document", at, ...read, links: linksOf(event) }];
    }
    case "consent-shown":
      return stepOf(event, "consent", true);
    case "approved":
      return stepOf(event, "approved", true, { approvedClient: true });
    case "denied":
      return stepOf(event, "denied", false, { error: "access_denied" });
    case "redeemed": {
      // The grant made or renewed: the one a refresh named, or the code's new one.
      const subject = loggable({ ...event.subject, ...(event.grantId ? { grantId: event.grantId } : {}) });
      return subject ? stepOf(subject, subject.stage, true, { approvedClient: true }) : [];
    }
    case "refused": {
      const subject = loggable(event.subject);
      return subject ? stepOf(subject, subject.stage, false, { error: event.error, detail: event.description }) : [];
    }
    case "resource-refused":
      // The client is the grant's: read after the answer.
      return async (store) => {
        const grant = await store.get<GrantRecord>(RECORDS.grant.key(event.grantId));
        return typeof grant?.clientId === "string"
          ? stepOf({ clientId: grant.clientId, grantId: event.grantId }, "resource", false, { error: event.reason })
          : [];
      };
    case "app-approved":
    case "passkey-added":
    case "passkey-removed":
    case "new-device-sign-in":
    case "throttle-engaged":
    case "sign-in":
    case "sign-in-throttled":
      return null;
  }
}

/** The log's subscriber to the events of one request (or one use of the resource API): its
 * steps written in the order they were emitted (those of one attempt share a record), after the
 * answer where the platform has waitUntil, else within LOG_DEADLINE_MS. Never rejects. */
export function connectionLogSubscriber(target: {
  rt: { readonly store: KeyValueStore; now(): number };
  waitUntil?: WaitUntil;
}): Emit {
  let logged: Promise<void> = Promise.resolve();
  return async (...events) => {
    const at = target.rt.now();
    const followed = events.map((event) => stepsOf(event, at)).filter((steps) => steps !== null);
    if (followed.length === 0) return;
    logged = logged
      .then(async () => {
        const { store } = target.rt;
        for (const steps of followed)
          for (const step of typeof steps === "function" ? await steps(store) : steps)
            await recordConnectionStep(store, step);
      })
      .catch((error: unknown) =>
        console.warn(
          `indieauth: the connection log was not written: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    await afterAnswer(target.waitUntil, logged, LOG_DEADLINE_MS);
  };
}

/** One log per client. A client approved while another step of it was being written (the
 * code redeemed at once, say) can have its slot's record beside its approved one: merged. */
function oneEach(records: readonly ConnectionRecord[]): ConnectionRecord[] {
  const byClient = new Map<string, ConnectionRecord>();
  for (const record of records) {
    const seen = byClient.get(record.clientId);
    byClient.set(
      record.clientId,
      seen ? { ...seen, approved: seen.approved || record.approved, ...mergeTiers(seen, record) } : record,
    );
  }
  return [...byClient.values()];
}

/** The logs the console shows: at most the ceiling plus the slots, one list and one read each. */
export async function readConnectionLogs(store: KeyValueStore, now: number): Promise<ConnectionRecord[]> {
  const listed = await store.list(RECORDS.connectionLog.prefix);
  const keys = listed.slice(0, CONNECTION_APPROVED_CEILING + CONNECTION_SLOTS);
  const records = await Promise.all(keys.map((key) => store.get<ConnectionRecord>(key)));
  const live = records.filter(
    (r): r is ConnectionRecord => r?.kind === "connection-log" && Array.isArray(r.attempts) && r.expiresAt > now,
  );
  const fresh = (list: StoredAttempt[]) => list.filter((a) => a.at > now - RETENTION_MS);
  const logs = live.map((r) => ({ ...r, ...tiersOf(r) })).sort((a, b) => Number(b.approved) - Number(a.approved));
  return oneEach(logs)
    .map((r) => ({ ...r, attempts: fresh(r.attempts), anonymous: fresh(r.anonymous) }))
    .filter((r) => r.attempts.length + r.anonymous.length > 0)
    .sort((a, b) => latestAt(b) - latestAt(a));
}

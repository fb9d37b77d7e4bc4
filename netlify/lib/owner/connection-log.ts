// The connection doctor's log: per client, its last attempts to connect and the step where each
// ended (request checked, client document read, consent shown, approved or denied, code
// redeemed or the OAuth error /token answered, refreshes, tokens refused by the blog's
// functions). One attempt is followed across steps by links: hashes of what each step knows
// (the PKCE challenge, the code, the grant id), never a code or token itself.
//
// Bounded three ways: the last ATTEMPTS_PER_CLIENT attempts of CONNECTION_RETENTION_DAYS per
// client; at most CONNECTION_APPROVED_CEILING records of clients the owner approved (one per
// client, keyed by its app id); and CONNECTION_SLOTS slots for every other client, chosen by
// the client's hash, where a colliding client takes the slot over. Anyone can start a sign-in
// request, so requests from anyone only ever churn those slots: they never push an approved
// app's log out, nor add records.
//
// Best effort: logConnectionSteps hands the write to the platform's waitUntil where there is
// one (Netlify has it), else waits LOG_DEADLINE_MS at most; a failure never reaches the answer,
// and a write that loses a race is retried, then dropped.
import { secretHash } from "../crypto/secrets.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore, Version } from "../platform/store.ts";
import { appIdOf } from "../protocol/revocations.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { afterAnswer } from "../platform/after-answer.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
export const ATTEMPTS_PER_CLIENT = 50;
export const CONNECTION_RETENTION_DAYS = 30;
const RETENTION_MS = CONNECTION_RETENTION_DAYS * DAY_MS;
export const CONNECTION_APPROVED_CEILING = 32;
export const CONNECTION_SLOTS = 16;
/** Steps kept per attempt (the latest: refreshes of a long connection add up). */
const STEPS_PER_ATTEMPT = 8;
const LINKS_PER_ATTEMPT = 4;
/** Longest text kept of what a client or an error said. */
export const LOG_TEXT_LIMIT = 100;
/** A client_id longer than this is not logged (no valid request has one). */
const CLIENT_ID_LIMIT = 2048;
const WRITE_TRIES = 3;

export type ConnectionStep = "request" | "document" | "consent" | "approved" | "denied" | "code" | "refresh" | "resource";

export interface StoredStep {
  step: ConnectionStep;
  ok: boolean;
  at: number;
  /** The OAuth error code, or the resource's refusal reason. */
  error?: string;
  /** What the step said, cut to LOG_TEXT_LIMIT characters. */
  detail?: string;
}

interface StoredAttempt {
  startedAt: number;
  at: number;
  links: string[];
  steps: StoredStep[];
}

export interface ConnectionRecord {
  kind: "connection-log";
  clientId: string;
  approved: boolean;
  attempts: StoredAttempt[];
  expiresAt: number;
}

export interface StepEvent extends StoredStep {
  clientId: string;
  /** Hashes that tie this step to earlier and later steps of the same attempt. */
  links: string[];
  /** The owner approved the client: its log moves to (or stays in) the approved tier. */
  approvedClient?: boolean;
}

const short = (value: string) => secretHash(value).slice(0, 22);
/** What ties the steps of one attempt: the PKCE challenge (GET /auth, approval), the code
 * (approval, /token), the grant (/token, refresh, the resource). */
export const attemptLinks = {
  challenge: (clientId: string, codeChallenge: string) => `p:${short(`${clientId}\u0000${codeChallenge}`)}`,
  code: (code: string) => `c:${short(code)}`,
  grant: (grantId: string) => `g:${short(grantId)}`,
};

/** Text a client or an error supplied, as kept: cut, an ellipsis ending a cut one. */
export function logText(text: string): string {
  const chars = Array.from(text);
  return chars.length <= LOG_TEXT_LIMIT ? text : `${chars.slice(0, LOG_TEXT_LIMIT - 1).join("")}…`;
}

const approvedKey = (clientId: string) => RECORDS.connectionLog.key(`a/${appIdOf(clientId)}`);
const slotKey = (clientId: string) => RECORDS.connectionLog.key(`u/${Buffer.from(secretHash(clientId), "base64url")[0]! % CONNECTION_SLOTS}`);
const APPROVED_PREFIX = RECORDS.connectionLog.key("a/");

function recordOf(value: unknown, clientId: string): ConnectionRecord | null {
  const record = value as ConnectionRecord | null;
  return record?.kind === "connection-log" && record.clientId === clientId && Array.isArray(record.attempts) ? record : null;
}

/** The attempts with the step added: to the attempt it links to, else as a new one; the
 * newest first, the old and the surplus dropped. */
export function withStep(attempts: readonly StoredAttempt[], event: StepEvent): StoredAttempt[] {
  const { clientId: _c, links, approvedClient: _a, ...rest } = event;
  const step: StoredStep = { ...rest, ...(event.detail !== undefined ? { detail: logText(event.detail) } : {}) };
  const live = attempts.filter((a) => a.at > event.at - RETENTION_MS);
  const index = live.findIndex((a) => a.links.some((link) => links.includes(link)));
  const found = index >= 0 ? live.splice(index, 1)[0]! : { startedAt: event.at, at: event.at, links: [], steps: [] };
  const attempt: StoredAttempt = {
    startedAt: found.startedAt,
    at: Math.max(found.at, event.at),
    links: [...new Set([...found.links, ...links])].slice(-LINKS_PER_ATTEMPT),
    steps: [...found.steps, step].slice(-STEPS_PER_ATTEMPT),
  };
  return [attempt, ...live].slice(0, ATTEMPTS_PER_CLIENT);
}

async function write(store: KeyValueStore, key: string, event: StepEvent, approved: boolean, first: { value: unknown; version: Version }, earlier: StoredAttempt[] = []): Promise<void> {
  let current = first;
  for (let tries = 0; tries < WRITE_TRIES; tries++) {
    const previous = recordOf(current.value, event.clientId)?.attempts ?? earlier;
    const attempts = withStep(previous, event);
    const record: ConnectionRecord = { kind: "connection-log", clientId: event.clientId, approved, attempts, expiresAt: attempts[0]!.at + RETENTION_MS };
    if (await store.setIfUnchanged(key, record, current.version)) return;
    await collisionPause(tries + 1);
    current = await store.getVersioned(key);
  }
}

/** Adds one step to its client's log (see the bounds above). Throws on a storage failure:
 * callers go through logConnectionSteps, which never lets it reach an answer. */
export async function recordConnectionStep(store: KeyValueStore, event: StepEvent): Promise<void> {
  if (event.clientId.length > CLIENT_ID_LIMIT) return;
  const key = approvedKey(event.clientId);
  const approved = await store.getVersioned<ConnectionRecord>(key);
  if (recordOf(approved.value, event.clientId)) return write(store, key, event, true, approved);
  const slot = slotKey(event.clientId);
  if (event.approvedClient && (await store.list(APPROVED_PREFIX)).length < CONNECTION_APPROVED_CEILING) {
    // Promoted: the attempts logged in its slot so far come along. The slot keeps its copy (a
    // step written there meanwhile is not lost; the console merges the two: readConnectionLogs).
    const earlier = recordOf(await store.get(slot), event.clientId)?.attempts ?? [];
    return write(store, key, event, true, approved, earlier);
  }
  return write(store, slot, event, false, await store.getVersioned(slot));
}

/** Where the steps are recorded from: the store, and the platform's waitUntil if it has one. */
export interface LogTarget {
  store: KeyValueStore;
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/** The longest an answer waits for its log where the platform has no waitUntil. */
export const LOG_DEADLINE_MS = 1000;

/** Records the steps that `steps` finds: handed to waitUntil where there is one (resolves at
 * once), else resolves when written or after LOG_DEADLINE_MS, whichever is first (the write
 * goes on). Never throws, never rejects. */
export async function logConnectionSteps(target: LogTarget, steps: () => Promise<StepEvent[]> | StepEvent[]): Promise<void> {
  const work = Promise.resolve()
    .then(steps)
    .then(async (events) => {
      for (const event of events) await recordConnectionStep(target.store, event);
    })
    .catch((error: unknown) => console.warn(`indieauth: the connection log was not written: ${error instanceof Error ? error.message : String(error)}`));
  await afterAnswer(target.waitUntil, work, LOG_DEADLINE_MS);
}

/** Attempts of one client from two records, those sharing a link made one. */
function mergeAttempts(first: readonly StoredAttempt[], second: readonly StoredAttempt[]): StoredAttempt[] {
  const out = first.map((a) => ({ ...a }));
  for (const attempt of second) {
    const same = out.find((a) => a.links.some((link) => attempt.links.includes(link)));
    if (!same) {
      out.push(attempt);
      continue;
    }
    const steps = new Map([...same.steps, ...attempt.steps].map((s) => [JSON.stringify([s.step, s.at, s.ok, s.error]), s]));
    same.steps = [...steps.values()].sort((a, b) => a.at - b.at).slice(-STEPS_PER_ATTEMPT);
    same.links = [...new Set([...same.links, ...attempt.links])];
    same.startedAt = Math.min(same.startedAt, attempt.startedAt);
    same.at = Math.max(same.at, attempt.at);
  }
  return out.sort((a, b) => b.at - a.at).slice(0, ATTEMPTS_PER_CLIENT);
}

/** One log per client. A client approved while another step of it was being written (the
 * code redeemed at once, say) can have its slot's record beside its approved one: merged. */
function oneEach(records: readonly ConnectionRecord[]): ConnectionRecord[] {
  const byClient = new Map<string, ConnectionRecord>();
  for (const record of records) {
    const seen = byClient.get(record.clientId);
    byClient.set(record.clientId, seen ? { ...seen, approved: seen.approved || record.approved, attempts: mergeAttempts(seen.attempts, record.attempts) } : record);
  }
  return [...byClient.values()];
}

/** The logs the console shows: at most the ceiling plus the slots, one list and one read each. */
export async function readConnectionLogs(store: KeyValueStore, now: number): Promise<ConnectionRecord[]> {
  const keys = (await store.list(RECORDS.connectionLog.prefix)).slice(0, CONNECTION_APPROVED_CEILING + CONNECTION_SLOTS);
  const records = await Promise.all(keys.map((key) => store.get<ConnectionRecord>(key)));
  const live = records.filter((r): r is ConnectionRecord => r?.kind === "connection-log" && Array.isArray(r.attempts) && r.expiresAt > now);
  return oneEach(live.sort((a, b) => Number(b.approved) - Number(a.approved)))
    .map((r) => ({ ...r, attempts: r.attempts.filter((a) => a.at > now - RETENTION_MS) }))
    .filter((r) => r.attempts.length > 0)
    .sort((a, b) => b.attempts[0]!.at - a.attempts[0]!.at);
}

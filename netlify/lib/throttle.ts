// Password guessing limits, counted in Blobs so they hold across function instances:
// per client IP, a growing back-off after a few failures; overall, a lock after many
// failures in an hour (the owner is one person; twenty wrong passwords an hour is an attack).
import { secretHash } from "./secrets.ts";
import type { KeyValueStore } from "./store.ts";

export const THROTTLE_POLICY = {
  /** Failures from one IP before back-off starts. */
  freeFailuresPerIp: 5,
  /** First back-off; doubles with each further failure. */
  firstBackoffMs: 60_000,
  maxBackoffMs: 15 * 60_000,
  /** An IP's record is forgotten a day after its last failure. */
  ipMemoryMs: 24 * 60 * 60_000,
  globalFailures: 20,
  globalWindowMs: 60 * 60_000,
  globalLockMs: 15 * 60_000,
} as const;

interface IpRecord {
  failures: number;
  lockedUntil: number;
  expiresAt: number;
}

interface GlobalRecord {
  /** Times of recent failures, within the window. */
  failures: number[];
  lockedUntil: number;
  expiresAt: number;
}

/** The records a check read, handed on to recordFailure so a failure costs no second read. */
export interface ThrottleRecords {
  ip: IpRecord | null;
  global: GlobalRecord | null;
}

export type ThrottleVerdict = ({ allowed: true } | { allowed: false; retryAfterSeconds: number }) & { records: ThrottleRecords };

const GLOBAL_KEY = "throttle/global";
const ipKey = (ip: string) => `throttle/ip/${secretHash(ip)}`;

export async function checkThrottle(store: KeyValueStore, ip: string, now: number): Promise<ThrottleVerdict> {
  const [ipRecord, globalRecord] = await Promise.all([
    store.get<IpRecord>(ipKey(ip)),
    store.get<GlobalRecord>(GLOBAL_KEY),
  ]);
  const records = { ip: ipRecord, global: globalRecord };
  const lockedUntil = Math.max(ipRecord?.lockedUntil ?? 0, globalRecord?.lockedUntil ?? 0);
  if (lockedUntil > now) return { allowed: false, retryAfterSeconds: Math.ceil((lockedUntil - now) / 1000), records };
  return { allowed: true, records };
}

/** Counts a failed password, from the records its check read. Best effort under concurrency
 * (read, then write): the limits are about orders of magnitude, and a lost count only delays a
 * lock by one attempt. */
export async function recordFailure(store: KeyValueStore, ip: string, now: number, records: ThrottleRecords): Promise<void> {
  const p = THROTTLE_POLICY;
  const { ip: ipRecord, global: globalRecord } = records;

  const previous = ipRecord && ipRecord.expiresAt > now ? ipRecord.failures : 0;
  const failures = previous + 1;
  const excess = failures - p.freeFailuresPerIp;
  const backoff = excess >= 0 ? Math.min(p.firstBackoffMs * 2 ** excess, p.maxBackoffMs) : 0;
  const nextIp: IpRecord = { failures, lockedUntil: backoff > 0 ? now + backoff : 0, expiresAt: now + p.ipMemoryMs };

  const recent = (globalRecord?.failures ?? []).filter((t) => t > now - p.globalWindowMs);
  recent.push(now);
  const locked = recent.length >= p.globalFailures;
  const nextGlobal: GlobalRecord = {
    failures: locked ? [] : recent,
    lockedUntil: locked ? now + p.globalLockMs : (globalRecord?.lockedUntil ?? 0),
    expiresAt: now + p.globalWindowMs + p.globalLockMs,
  };

  await Promise.all([store.set(ipKey(ip), nextIp), store.set(GLOBAL_KEY, nextGlobal)]);
}

/** A correct password clears that IP's count (the overall window stays). */
export async function recordSuccess(store: KeyValueStore, ip: string): Promise<void> {
  await store.delete(ipKey(ip));
}

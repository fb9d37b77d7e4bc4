// Password guessing limits, counted in Blobs so they hold across function instances:
// per client address, a growing back-off after a few failures; overall, a lock after many
// failures in an hour (the owner is one person; twenty wrong passwords an hour is an attack).
//
// Every attempt is written down as a record of its own BEFORE the password is checked, then
// the attempts before it are counted. Guesses sent at the same moment therefore see each
// other (no read-then-write counter to lose updates), and a refused attempt removes its
// record again, so being held back neither counts nor extends anything.
import { randomBytes } from "node:crypto";
import { isIPv6 } from "../http/ip-address.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";

export const THROTTLE_POLICY = {
  /** Failures from one address before back-off starts. */
  freeFailuresPerIp: 5,
  /** First back-off; doubles with each further failure. */
  firstBackoffMs: 60_000,
  maxBackoffMs: 15 * 60_000,
  /** An address's failures are remembered for a day. */
  ipMemoryMs: 24 * 60 * 60_000,
  globalFailures: 20,
  globalWindowMs: 60 * 60_000,
  globalLockMs: 15 * 60_000,
} as const;

interface AttemptRecord {
  at: number;
  expiresAt: number;
}

/** An attempt that was let through: what the outcome must clean up. */
interface Attempt {
  ipPrefix: string;
  ipKey: string;
  /** Absent for an attempt that does not count towards the overall lock. */
  globalKey?: string;
}

/** "overall": a password check, counted per address and towards the overall lock. "address":
 * an attempt that guesses nothing (a passkey answer, which cannot be guessed, or a password
 * while password sign-in is off), limited per address against floods but never counted
 * towards the overall lock: otherwise anyone could lock the owner's passkeys out. */
export type AttemptScope = "overall" | "address";

type ThrottleVerdict = { allowed: true; attempt: Attempt } | { allowed: false; retryAfterSeconds: number };

/** What follows an attempt key's prefix: a fixed-width millisecond count (readable,
 * sortable), then randomness against ties. */
function attemptStamp(now: number): string {
  return `${String(now).padStart(15, "0")}-${randomBytes(6).toString("base64url")}`;
}

/** IPv6 users hold a whole /64: counting per address would give a guesser billions of them.
 * (The address is the platform's, so plain parsing is enough: ipaddr.js, a 13 KB library,
 * stays out of the functions that check passwords.) */
export function addressGroup(ip: string): string {
  const address = ip.split("%", 1)[0]!.toLowerCase();
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = address.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail).flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const full = [...before, ...Array<string>(Math.max(0, 8 - before.length - after.length)).fill("0"), ...after];
  return `${full.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

const GLOBAL_PREFIX = RECORDS.throttleOverall.prefix;

/** Every other attempt still remembered: the finished failures, and any made at the same
 * moment (counted as failures too: in a burst, the safe reading). The time is read from the
 * key itself, so counting costs one list and no reads. */
async function others(store: KeyValueStore, prefix: string, own: string, since: number): Promise<number[]> {
  const keys = (await store.list(prefix)).filter((key) => key !== own);
  return keys.map((key) => Number(key.slice(prefix.length, prefix.length + 15))).filter((at) => Number.isFinite(at) && at > since);
}

const latest = (times: number[]) => times.reduce((a, b) => Math.max(a, b), 0);

/** When the address may try again, given the failures before this attempt. */
function ipLockedUntil(failures: number[]): number {
  const p = THROTTLE_POLICY;
  const excess = failures.length - p.freeFailuresPerIp;
  if (excess < 0) return 0;
  return latest(failures) + Math.min(p.firstBackoffMs * 2 ** excess, p.maxBackoffMs);
}

/** Twenty failures within an hour of the latest one lock everyone out for fifteen minutes. */
function globalLockedUntil(failures: number[]): number {
  const p = THROTTLE_POLICY;
  if (failures.length === 0) return 0;
  const last = latest(failures);
  const recent = failures.filter((at) => at > last - p.globalWindowMs);
  return recent.length >= p.globalFailures ? last + p.globalLockMs : 0;
}

/** Records the attempt, then decides; a refused attempt leaves no trace. */
export async function beginAttempt(store: KeyValueStore, ip: string, now: number, scope: AttemptScope = "overall"): Promise<ThrottleVerdict> {
  const p = THROTTLE_POLICY;
  const group = addressGroup(ip);
  const attempt: Attempt = {
    ipPrefix: RECORDS.throttleAddress.addressPrefix(group),
    ipKey: RECORDS.throttleAddress.key(group, attemptStamp(now)),
    ...(scope === "overall" ? { globalKey: RECORDS.throttleOverall.key(attemptStamp(now)) } : {}),
  };
  const { globalKey } = attempt;
  await Promise.all([
    store.set(attempt.ipKey, { at: now, expiresAt: now + p.ipMemoryMs } satisfies AttemptRecord),
    globalKey && store.set(globalKey, { at: now, expiresAt: now + p.globalWindowMs + p.globalLockMs } satisfies AttemptRecord),
  ]);
  const [ipFailures, globalFailures] = await Promise.all([
    others(store, attempt.ipPrefix, attempt.ipKey, now - p.ipMemoryMs),
    globalKey ? others(store, GLOBAL_PREFIX, globalKey, now - p.globalWindowMs - p.globalLockMs) : [],
  ]);
  const lockedUntil = Math.max(ipLockedUntil(ipFailures), globalLockedUntil(globalFailures));
  if (lockedUntil > now) {
    await Promise.all([store.delete(attempt.ipKey), globalKey && store.delete(globalKey)]);
    return { allowed: false, retryAfterSeconds: Math.ceil((lockedUntil - now) / 1000) };
  }
  return { allowed: true, attempt };
}

/** A right password clears its address's count; its own entry leaves the overall window,
 * which otherwise stays (successes are not failures, and the window is not the owner's). */
export async function attemptSucceeded(store: KeyValueStore, attempt: Attempt): Promise<void> {
  const keys = await store.list(attempt.ipPrefix);
  await Promise.all([...keys.map((key) => store.delete(key)), attempt.globalKey && store.delete(attempt.globalKey)]);
}

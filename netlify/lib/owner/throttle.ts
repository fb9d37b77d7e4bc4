// Password guessing limits, counted in Blobs so they hold across function instances (the rules:
// docs/security.md). A known device or a live session is judged by its own failures only, so that
// nobody else's guessing locks the owner out; any other attempt by its address, its network and,
// when it checks a password, overall, where past the threshold one guess a minute still goes
// (stopping everyone let anyone lock the owner out). An attempt let through is written into its
// counters BEFORE the password is checked, a failure until a right password takes it back; a
// refused one writes nothing here. A passkey answer comes here only when it failed (sign-in.ts).
import { randomBytes } from "node:crypto";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { addressGroup, networkGroup } from "./address-groups.ts";
import { latestOf, readEntries, reserve, takeBack, type Counter, type Entry, type Rule } from "./throttle-counter.ts";
import { THROTTLE_POLICY } from "../core/policy.ts";

/** "overall": a password check (or a passkey answer that named a registered passkey and did not
 * verify), counted towards the overall limit too. "address": a password while password sign-in
 * is off, which is never checked and so guesses nothing, limited against floods but never
 * counted overall. */
export type AttemptScope = "overall" | "address";

/** Where an attempt comes from. `device`: the id of a known device (its signed cookie) or of
 * a live session, when the request carries one. */
export interface AttemptSource {
  ip: string;
  device?: string;
}

/** Whether the overall limit judged this attempt: "engaged" when it was in force (past its
 * threshold: the point where the owner may want to hear of it), "open" when not,
 * "not-counted" for a known device or an attempt that guesses nothing. */
export type OverallState = "open" | "engaged" | "not-counted";

interface Reserved {
  counter: Counter;
  tag: string;
  created: boolean;
}

/** An attempt let through: what its outcome must clean up. */
export interface Attempt {
  reserved: Reserved[];
  /** Cleared by a right password: the address's or the device's own count. */
  own: Counter;
}

export type ThrottleVerdict =
  | { allowed: true; attempt: Attempt; overall: OverallState }
  /** `heldBySince`: when the latest failure that holds it back was made (absent when a busy
   * counter, not a limit, held it back): the refusal is told in that failure's hour of the history. */
  | { allowed: false; retryAfterSeconds: number; overall: OverallState; heldBySince?: number; busy?: true };

const p = THROTTLE_POLICY;

const engaged = (entries: Entry[]) => entries.length >= p.globalFailures;

/** Past the threshold, one counted guess per interval. */
const overallRule: Rule = (entries) => (engaged(entries) ? latestOf(entries) + p.globalIntervalMs : 0);

const EXTRA = 5; // entries kept past a rule's threshold: the back-off is at its longest by then
const OVERALL: Counter = {
  key: RECORDS.throttleOverall.key(),
  memoryMs: p.globalWindowMs,
  keep: p.globalFailures,
  capped: false,
};

interface Stage {
  counter: Counter;
  rule: Rule;
}

/** A counter with a back-off after `free` failures, doubling with each further one. */
const backoffStage = (key: string, free: number, capped: boolean): Stage => ({
  counter: { key, memoryMs: p.ipMemoryMs, keep: free + EXTRA, capped },
  rule: (entries) => {
    const excess = entries.length - free;
    return excess < 0 ? 0 : latestOf(entries) + Math.min(p.firstBackoffMs * 2 ** excess, p.maxBackoffMs);
  },
});

function stagesOf(source: AttemptSource, scope: AttemptScope): Stage[] {
  if (source.device) return [backoffStage(RECORDS.throttleDevice.key(source.device), p.freeFailuresPerIp, false)];
  const stages = [backoffStage(RECORDS.throttleAddress.key(addressGroup(source.ip)), p.freeFailuresPerIp, true)];
  const network = networkGroup(source.ip);
  if (network) stages.push(backoffStage(RECORDS.throttleAddress.key(network), p.freeFailuresPerNetwork, true));
  if (scope === "overall") stages.push({ counter: OVERALL, rule: overallRule });
  return stages;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

async function undo(store: KeyValueStore, reserved: Reserved[], now: number): Promise<void> {
  await Promise.all(reserved.map((r) => takeBack(store, r.counter, r.tag, r.created, now)));
}

/** Decides, and writes the attempt into its counters when it may go. A look at every counter
 * first refuses a held-back attempt without writing anything. */
export async function beginAttempt(
  store: KeyValueStore,
  source: AttemptSource,
  now: number,
  scope: AttemptScope = "overall",
): Promise<ThrottleVerdict> {
  const stages = stagesOf(source, scope);
  const counted = stages.some((s) => s.counter === OVERALL);
  const looks = await Promise.all(stages.map((s) => readEntries(store, s.counter, now)));
  const overall: OverallState = !counted ? "not-counted" : engaged(looks[looks.length - 1]!) ? "engaged" : "open";
  const untils = stages.map((s, i) => s.rule(looks[i]!, now));
  const until = Math.max(...untils);
  if (until > now)
    return {
      allowed: false,
      retryAfterSeconds: seconds(until - now),
      overall,
      heldBySince: latestOf(looks[untils.indexOf(until)]!),
    };

  const tag = randomBytes(9).toString("base64url");
  const reserved: Reserved[] = [];
  for (const stage of stages) {
    const result = await reserve(store, stage.counter, stage.rule, { at: now, tag });
    if (result === "busy") {
      await undo(store, reserved, now);
      return { allowed: false, retryAfterSeconds: seconds(p.busyRetryMs), overall, busy: true };
    }
    if (!result.ok) {
      await undo(store, reserved, now);
      return { allowed: false, retryAfterSeconds: seconds(result.until - now), overall, heldBySince: result.since };
    }
    if (result.written) reserved.push({ counter: stage.counter, tag, created: result.created });
  }
  return { allowed: true, attempt: { reserved, own: stages[0]!.counter }, overall };
}

/** A right password clears its address's (or device's) count; its own entries leave the
 * network's and the overall count, which otherwise stay (the other failures were not the owner's). */
export async function attemptSucceeded(store: KeyValueStore, attempt: Attempt, now: number): Promise<void> {
  const others = attempt.reserved.filter((r) => r.counter !== attempt.own);
  await Promise.all([store.delete(attempt.own.key), undo(store, others, now)]);
}

/** A passkey that verified (never counted before, as it could not be guessed) clears its
 * address's (or device's) count as a right password does. */
export async function sourceSucceeded(store: KeyValueStore, source: AttemptSource): Promise<void> {
  await store.delete(stagesOf(source, "address")[0]!.counter.key);
}

// The owner's sign-in history: every sign-in and failed attempt, kept 30 days, one record each
// (appending to a shared list would lose events when two sign-ins race). Bounded by construction
// (docs/security.md, docs/data-model.md): an event claims one of its hour's slots with a
// write-if-new; past them, a failure only adds to the hour's count, as do attempts the throttle
// refused (after their answer, at most REFUSED_COUNTED_PER_HOUR an hour), so junk cannot grow the
// history nor crowd out the owner's sign-ins. Days and hours count down, so keys sort newest first.
import type { SignInEventView } from "../pages/account-view.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { cutText } from "./connection-attempts.ts";
import { EVENT_RETENTION_DAYS, EVENT_SLOTS_PER_HOUR, REFUSED_COUNTED_PER_HOUR } from "../core/policy.ts";
import { DAY, dayOf, HOUR } from "../core/time.ts";

const EVENT_RETENTION_MS = EVENT_RETENTION_DAYS * DAY;
export const CLIENT_TEXT_LIMIT = 100;
/** Conditional writes tried to add to an hour's count. */
const COUNT_TRIES = 5;
/** Days count down from here, so that the newest sorts first. */
const LATEST_DAY = 999_999;

export interface SignInEventRecord extends SignInEventView {
  kind: "sign-in-event";
  expiresAt: number;
}

export function dayPrefix(day: number): string {
  return RECORDS.signInEvent.key(`${String(LATEST_DAY - day).padStart(6, "0")}/`);
}

/** The slots of one hour and outcome, without the slot's number. */
function slotBase(event: SignInEventView): string {
  const hour = Math.floor((event.at % DAY) / HOUR);
  return `${dayPrefix(dayOf(event.at))}${String(23 - hour).padStart(2, "0")}${event.outcome === "success" ? "s" : "f"}`;
}

const slotKey = (base: string, slot: number) => `${base}${String(slot).padStart(2, "0")}`;

/** The hours (slot bases) this instance found full, per store: an hour's slots are only ever
 * taken until they expire, so later events of a full hour skip the write and the list. Only
 * the current hours matter, so the memory is dropped when it grows past a few. */
const fullHours = new WeakMap<KeyValueStore, Set<string>>();
const FULL_HOURS_KEPT = 8;

function rememberFull(store: KeyValueStore, base: string): void {
  const hours = fullHours.get(store) ?? new Set<string>();
  if (hours.size >= FULL_HOURS_KEPT) hours.clear();
  fullHours.set(store, hours.add(base));
}

/** Claims a free slot. The first try is the slot of the moment within the hour (a few minutes
 * each), so that the events of an hour, rarely close together, each cost one write; when it is
 * taken, one list finds the free ones. False when the hour is full (or keeps being taken by
 * writes at the same moment). */
async function claimSlot(
  store: KeyValueStore,
  base: string,
  slots: number,
  record: SignInEventRecord,
): Promise<boolean> {
  if (fullHours.get(store)?.has(base)) return false;
  const first = Math.floor((record.at % HOUR) / (HOUR / slots));
  if (await store.setIfNew(slotKey(base, first), record)) return true;
  const taken = new Set(await store.list(base));
  let tries = 0;
  for (let step = 1; step < slots && tries < 2; step++) {
    const slot = (first + step) % slots;
    if (taken.has(slotKey(base, slot))) continue;
    tries++;
    if (await store.setIfNew(slotKey(base, slot), record)) return true;
  }
  if (taken.size >= slots) rememberFull(store, base);
  return false;
}

interface OverflowRecord {
  kind: "sign-in-overflow";
  /** Failures of the hour that found its slots taken. */
  count: number;
  /** Attempts the throttle refused, held back by a failure of the hour. */
  refused?: number;
  expiresAt: number;
}

const hourOf = (at: number) => Math.floor(at / HOUR);

/** One more in one of an hour's counts (read, add one, write back if unchanged), unless it
 * holds `most` already: then "full", and nothing is written. */
async function addToHour(
  store: KeyValueStore,
  at: number,
  field: "count" | "refused",
  most = Infinity,
): Promise<"added" | "full"> {
  const key = RECORDS.signInOverflow.key(hourOf(at));
  for (let i = 0; i < COUNT_TRIES; i++) {
    if (i > 0) await collisionPause(i);
    const { value, version } = await store.getVersioned<OverflowRecord>(key);
    const record: OverflowRecord =
      value?.kind === "sign-in-overflow" ? value : { kind: "sign-in-overflow", count: 0, expiresAt: 0 };
    const current = record[field] ?? 0;
    if (current >= most) return "full";
    const next: OverflowRecord = {
      ...record,
      [field]: current + 1,
      expiresAt: Math.max(record.expiresAt, at + EVENT_RETENTION_MS),
    };
    if (await store.setIfUnchanged(key, next, version)) return "added";
  }
  return "added";
}

/** One more attempt the throttle refused, held back by a failure made at `heldBySince`: counted
 * in that failure's hour, until the hour has counted REFUSED_COUNTED_PER_HOUR (which this
 * instance then remembers, so that further refusals cost nothing at all). */
export async function countRefused(store: KeyValueStore, heldBySince: number): Promise<void> {
  const key = RECORDS.signInOverflow.key(hourOf(heldBySince));
  if (fullHours.get(store)?.has(key)) return;
  if ((await addToHour(store, heldBySince, "refused", REFUSED_COUNTED_PER_HOUR)) === "full") rememberFull(store, key);
}

/** Records the event unless its hour's slots are all taken (a failure then adds to the hour's
 * count of those not listed); says whether it was kept. */
export async function recordSignInEvent(store: KeyValueStore, event: SignInEventView): Promise<boolean> {
  const shown =
    event.clientId === undefined ? event : { ...event, clientId: cutText(event.clientId, CLIENT_TEXT_LIMIT) };
  const record: SignInEventRecord = { kind: "sign-in-event", ...shown, expiresAt: event.at + EVENT_RETENTION_MS };
  if (await claimSlot(store, slotBase(event), EVENT_SLOTS_PER_HOUR[event.outcome], record)) return true;
  // One more failure of the hour without a slot.
  if (event.outcome === "failure") await addToHour(store, event.at, "count");
  return false;
}

/** Marks the newest listed failure of each hour with the counts of that hour's failures not
 * listed and attempts refused, if any (one read per hour with a listed failure: a few, however
 * busy). */
export async function withUnlisted(
  store: KeyValueStore,
  events: SignInEventView[],
  now: number,
): Promise<SignInEventView[]> {
  const newestFailure = new Map<number, number>();
  events.forEach((e, i) => {
    if (e.outcome === "failure" && !newestFailure.has(hourOf(e.at))) newestFailure.set(hourOf(e.at), i);
  });
  const hours = [...newestFailure.keys()];
  const counts = await Promise.all(hours.map((hour) => store.get<OverflowRecord>(RECORDS.signInOverflow.key(hour))));
  const marked = [...events];
  hours.forEach((hour, i) => {
    const record = counts[i];
    if (record?.kind !== "sign-in-overflow" || record.expiresAt <= now) return;
    const at = newestFailure.get(hour)!;
    const unlisted = record.count > 0 ? record.count : 0;
    const refused = (record.refused ?? 0) > 0 ? record.refused! : 0;
    if (!unlisted && !refused) return;
    const reason = [
      marked[at]!.reason,
      unlisted && `and ${unlisted} more failed attempt${unlisted === 1 ? "" : "s"} this hour, not listed`,
      refused &&
        `and ${refused >= REFUSED_COUNTED_PER_HOUR ? `at least ${refused}` : refused} more refused by the limit, not checked`,
    ]
      .filter(Boolean)
      .join("; ");
    marked[at] = { ...marked[at]!, ...(unlisted ? { unlisted } : {}), ...(refused ? { refused } : {}), reason };
  });
  return marked;
}

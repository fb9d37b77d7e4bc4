// One counter record per thing the guessing throttle counts (an address, a network, a known
// device, everyone at once): the attempts it remembers, each tagged so that its own attempt can
// take it back. An attempt is written in with one conditional write, asking the rule again after
// a race, so guesses sent at the same moment are each counted and each sees those before it.
// Records an attacker can make (by address and network) are capped: each is counted once per UTC
// day it is written in that day's census; once today's and yesterday's hold COUNTER_CAP, a record
// that would be counted again is not written (the rule is still asked). A record lives a day
// after its last write, so live capped records never number more than COUNTER_CAP.
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore, Version } from "../platform/store.ts";
import { collisionPause } from "../platform/collision-pause.ts";
import { COUNTER_CAP } from "../core/policy.ts";
import { DAY, dayOf } from "../core/time.ts";

/** Conditional writes tried before an attempt gives up (the record is too busy: held back). Each
 * retry waits a random moment first: a burst's attempts retrying in step met again until none was left. */
const WRITE_TRIES = 12;

export interface Entry {
  at: number;
  tag: string;
}

interface CounterRecord {
  kind: "throttle-counter";
  /** Oldest first; no more than the counter keeps. */
  entries: Entry[];
  /** The UTC day whose census counts this record (capped records only). */
  day?: number;
  expiresAt: number;
}

interface CensusRecord {
  kind: "throttle-census";
  count: number;
  expiresAt: number;
}

export interface Counter {
  key: string;
  /** How long an attempt is remembered; the record expires this long after its last write. */
  memoryMs: number;
  /** Newest entries kept: enough for the rule to decide. */
  keep: number;
  /** Whether the record counts towards COUNTER_CAP (those any address can make). */
  capped: boolean;
}

/** When the next attempt may go (0 or a past time: now), given the live entries. */
export type Rule = (entries: Entry[], now: number) => number;

type Reservation =
  /** Let through; `written` false when the cap dropped the write. */
  | { ok: true; written: boolean; created: boolean }
  /** Held back until then, by the entries up to `since` (the latest). */
  | { ok: false; until: number; since: number };

export const latestOf = (entries: readonly Entry[]): number => entries.reduce((a, e) => Math.max(a, e.at), 0);

function live(record: CounterRecord | null, counter: Counter, now: number): Entry[] {
  if (record?.kind !== "throttle-counter" || !Array.isArray(record.entries) || record.expiresAt <= now) return [];
  return record.entries.filter((e) => e.at > now - counter.memoryMs);
}

/** The live entries, for a look without reserving anything. */
export async function readEntries(store: KeyValueStore, counter: Counter, now: number): Promise<Entry[]> {
  return live(await store.get<CounterRecord>(counter.key), counter, now);
}

/** Counts a record in today's census: "full" when today's and yesterday's hold the cap, "busy"
 * when the census kept changing. */
async function countInCensus(store: KeyValueStore, now: number): Promise<"counted" | "full" | "busy"> {
  const today = dayOf(now);
  const yesterday = (await store.get<CensusRecord>(RECORDS.throttleCensus.key(today - 1)))?.count ?? 0;
  for (let i = 0; i < WRITE_TRIES; i++) {
    if (i > 0) await collisionPause(i);
    const { value, version } = await store.getVersioned<CensusRecord>(RECORDS.throttleCensus.key(today));
    const count = value?.kind === "throttle-census" ? value.count : 0;
    if (count + yesterday >= COUNTER_CAP) return "full";
    const next: CensusRecord = { kind: "throttle-census", count: count + 1, expiresAt: (today + 2) * DAY };
    if (await store.setIfUnchanged(RECORDS.throttleCensus.key(today), next, version)) return "counted";
  }
  return "busy";
}

async function write(
  store: KeyValueStore,
  counter: Counter,
  entries: Entry[],
  day: number | undefined,
  version: Version,
  now: number,
): Promise<boolean> {
  const record: CounterRecord = {
    kind: "throttle-counter",
    entries,
    ...(day === undefined ? {} : { day }),
    expiresAt: Math.max(latestOf(entries), now) + counter.memoryMs,
  };
  return store.setIfUnchanged(counter.key, record, version);
}

/** Asks the rule, then writes the attempt in; "busy" when the record kept changing. */
export async function reserve(
  store: KeyValueStore,
  counter: Counter,
  rule: Rule,
  entry: Entry,
): Promise<Reservation | "busy"> {
  const now = entry.at;
  let counted = false;
  for (let i = 0; i < WRITE_TRIES; i++) {
    if (i > 0) await collisionPause(i);
    const { value, version } = await store.getVersioned<CounterRecord>(counter.key);
    const entries = live(value, counter, now);
    const until = rule(entries, now);
    if (until > now) return { ok: false, until, since: latestOf(entries) };
    const fresh = entries.length === 0 && !(value?.kind === "throttle-counter" && value.expiresAt > now);
    let day = value?.kind === "throttle-counter" ? value.day : undefined;
    if (counter.capped && day !== dayOf(now) && !counted) {
      const census = await countInCensus(store, now);
      // A census that stayed busy (a burst of new addresses at once) is taken as full for this
      // write: the attempt was judged on what is stored, and the overall count still counts it.
      if (census !== "counted") return { ok: true, written: false, created: false };
      counted = true;
    }
    if (counter.capped) day = dayOf(now);
    if (await write(store, counter, [...entries, entry].slice(-counter.keep), day, version, now))
      return { ok: true, written: true, created: fresh };
  }
  return "busy";
}

/** Takes one attempt back (refused further on, or the right password): its entry leaves the
 * record, and a record left empty that this attempt created goes with it. */
export async function takeBack(
  store: KeyValueStore,
  counter: Counter,
  tag: string,
  created: boolean,
  now: number,
): Promise<void> {
  for (let i = 0; i < WRITE_TRIES; i++) {
    if (i > 0) await collisionPause(i);
    const { value, version } = await store.getVersioned<CounterRecord>(counter.key);
    if (value?.kind !== "throttle-counter" || !value.entries.some((e) => e.tag === tag)) return;
    const entries = value.entries.filter((e) => e.tag !== tag);
    if (entries.length === 0 && created) return store.delete(counter.key);
    if (await write(store, counter, entries, value.day, version, now)) return;
  }
}

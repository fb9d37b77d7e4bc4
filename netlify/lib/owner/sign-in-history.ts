// The owner's sign-in history as the console reads it: a page at a time, newest first, so that
// a console load reads a bounded number of events however long the history is (at most 960 a
// day for 30 days: see sign-in-events.ts, which writes them). Keys sort newest first: the first
// page lists today's keys, and only when today has too few, the whole history's (one list
// either way, at most 28,800 keys); then it reads the page's records.
import type { SignInEventView } from "../pages/account-view.ts";
import { dayPrefix, withUnlisted, type SignInEventRecord } from "./sign-in-events.ts";
import { dayOf } from "../core/time.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";

export const HISTORY_PAGE = 50;
/** A key of the history: day and hour counting down, outcome, slot. */
const EVENT_KEY = /^events\/\d{6}\/\d{2}[sf]\d{2}$/;

export interface HistoryPage {
  events: SignInEventView[];
  /** Where the next (older) page starts: pass it back as `before`; absent on the last page. */
  before?: string;
}

/** Whether a `before` from a request has the shape of a history key. */
export const isHistoryCursor = (value: string): boolean => EVENT_KEY.test(value);

const hourOf = (key: string) => key.slice(0, key.length - 3);

/** The page's keys: `limit` of them, and the rest of the last hour (an hour's slots are not in
 * time order, so a page never splits one). */
function pageKeys(keys: readonly string[], limit: number): string[] {
  if (keys.length <= limit) return [...keys];
  let end = limit;
  while (end < keys.length && hourOf(keys[end]!) === hourOf(keys[limit - 1]!)) end++;
  return keys.slice(0, end);
}

/** The newest events older than `before` (all of them when absent), newest first. */
export async function signInHistory(
  store: KeyValueStore,
  now: number,
  before?: string,
  limit = HISTORY_PAGE,
): Promise<HistoryPage> {
  const listed = (prefix: string) =>
    store.list(prefix).then((keys) => keys.filter((key) => EVENT_KEY.test(key)).sort());
  let older: string[] = before === undefined ? await listed(dayPrefix(dayOf(now))) : [];
  // Today has no more than the page (or this is a later page): the whole history, in one list.
  if (older.length <= limit)
    older = (await listed(RECORDS.signInEvent.prefix)).filter((key) => before === undefined || key > before);
  const keys = pageKeys(older, limit);
  const records = await Promise.all(keys.map((key) => store.get<SignInEventRecord>(key)));
  const events = records
    .filter((r): r is SignInEventRecord => r?.kind === "sign-in-event" && r.expiresAt > now)
    .sort((a, b) => b.at - a.at)
    .map(({ kind: _kind, expiresAt: _expiresAt, ...event }) => event);
  if (events.length > limit) {
    // The page ends inside an hour: the next one starts again at that hour (a few events shown twice, none lost).
    const cutHour = hourOf(keys[limit - 1]!);
    const start = keys.findIndex((key) => hourOf(key) === cutHour);
    const shown = await withUnlisted(store, events.slice(0, limit), now);
    return start > 0 ? { events: shown, before: keys[start - 1]! } : { events: shown };
  }
  const shown = await withUnlisted(store, events, now);
  return keys.length < older.length ? { events: shown, before: keys[keys.length - 1]! } : { events: shown };
}

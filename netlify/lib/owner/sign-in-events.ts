// The owner's sign-in history: every sign-in and failed attempt, kept 30 days, one record each
// (appending to a shared list would lose events when two sign-ins race).
import { randomBytes } from "node:crypto";
import type { SignInEventView } from "../pages/account-view.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";

const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
const SHOWN = 50;
/** Keys sort newest first: the time counts down from here. */
const LATEST = 10 ** 15;

interface SignInEventRecord extends SignInEventView {
  kind: "sign-in-event";
  expiresAt: number;
}

function eventKey(at: number): string {
  return RECORDS.signInEvent.key(`${String(LATEST - at).padStart(15, "0")}-${randomBytes(6).toString("base64url")}`);
}

export async function recordSignInEvent(store: KeyValueStore, event: SignInEventView): Promise<void> {
  const record: SignInEventRecord = { kind: "sign-in-event", ...event, expiresAt: event.at + EVENT_RETENTION_MS };
  await store.set(eventKey(event.at), record);
}

/** The most recent events of the last 30 days, newest first. */
export async function recentSignInEvents(store: KeyValueStore, now: number, limit = SHOWN): Promise<SignInEventView[]> {
  const keys = (await store.list(RECORDS.signInEvent.prefix)).sort().slice(0, limit);
  const records = await Promise.all(keys.map((key) => store.get<SignInEventRecord>(key)));
  return records
    .filter((r): r is SignInEventRecord => r !== null && r.kind === "sign-in-event" && r.expiresAt > now)
    .map(({ kind: _kind, expiresAt: _expiresAt, ...event }) => event);
}

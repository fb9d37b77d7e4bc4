// The sign-in history's slots, as storage sees them: an event usually costs one write (its
// first try is the slot of its moment within the hour), and once this instance has found an
// hour full, the next events of that hour cost nothing. Real local Blobs server; the clock is
// the events' own `at`.
import { describe, expect, it } from "vitest";
import { recordSignInEvent } from "../../netlify/lib/owner/sign-in-events.ts";
import type { SignInEventView } from "../../netlify/lib/pages/account-view.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { OperationCounter } from "../helpers/counting-store.ts";
import { START_TIME, testRuntime } from "../helpers/runtime.ts";
import { EVENT_SLOTS_PER_HOUR } from "../../netlify/lib/core/policy.ts";

const MINUTE = 60_000;
/** The top of an hour, so that minutes count from the hour's first slot. */
const HOUR_START = Math.floor(START_TIME / (60 * MINUTE)) * 60 * MINUTE + 24 * 60 * MINUTE;

const signIn = (at: number): SignInEventView => ({
  at,
  ip: "203.0.113.9",
  where: "authorization",
  method: "session",
  outcome: "success",
});

async function counted() {
  const counter = new OperationCounter();
  const rt = await testRuntime({ wrapStore: (store) => counter.wrap(store) });
  return { store: rt.store, counter };
}

describe("the sign-in history's slots", () => {
  it("sign-ins minutes apart in one hour cost one write each, and none is lost", async () => {
    const { store, counter } = await counted();
    // Thirty slots an hour: two minutes each.
    for (const minute of [1, 7, 15, 31, 58]) {
      counter.reset();
      expect(await recordSignInEvent(store, signIn(HOUR_START + minute * MINUTE))).toBe(true);
      expect(counter.snapshot()).toEqual({ reads: 0, writes: 1, deletes: 0, lists: 0 });
    }
    expect(await store.list(RECORDS.signInEvent.prefix)).toHaveLength(5);
  });

  it("two in the same two minutes: the second finds a free slot with one list", async () => {
    const { store, counter } = await counted();
    expect(await recordSignInEvent(store, signIn(HOUR_START + 10 * MINUTE))).toBe(true);
    counter.reset();
    expect(await recordSignInEvent(store, signIn(HOUR_START + 10 * MINUTE + 5_000))).toBe(true);
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 2, deletes: 0, lists: 1 });
    expect(await store.list(RECORDS.signInEvent.prefix)).toHaveLength(2);
  });

  it("an hour found full costs nothing more in this instance, and the next hour is recorded again", async () => {
    const { store, counter } = await counted();
    const slots = EVENT_SLOTS_PER_HOUR.success;
    let kept = 0;
    for (let i = 0; i < slots + 5; i++) if (await recordSignInEvent(store, signIn(HOUR_START + 20 * MINUTE))) kept++;
    expect(kept).toBe(slots);
    counter.reset();
    expect(await recordSignInEvent(store, signIn(HOUR_START + 50 * MINUTE))).toBe(false);
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 0, deletes: 0, lists: 0 });
    expect(await recordSignInEvent(store, signIn(HOUR_START + 61 * MINUTE))).toBe(true);
    expect(await store.list(RECORDS.signInEvent.prefix)).toHaveLength(slots + 1);
  });
});

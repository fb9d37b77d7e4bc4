// The hourly sweep, against the real local Blobs server and an injected clock.
import { describe, expect, it } from "vitest";
import { sweepExpired } from "../../netlify/lib/platform/expiry-sweep.ts";
import { RECORDS, SWEPT_KINDS } from "../../netlify/lib/platform/records.ts";
import { approve, signedRequest, signInForCode } from "../helpers/endpoints.ts";
import { tokensFor } from "../helpers/tokens.ts";
import { recordSignInEvent } from "../../netlify/lib/owner/sign-in-events.ts";
import { START_TIME, testRuntime } from "../helpers/runtime.ts";

const DAY = 24 * 60 * 60 * 1000;

describe("housekeeping", () => {
  it("keeps what is live and deletes what has expired", async () => {
    const rt = await testRuntime();
    await signInForCode(rt);
    const tokens = await tokensFor(rt);
    await approve(rt, await signedRequest(rt), { password: "wrong" });
    await approve(rt, await signedRequest(rt), { remember: true });
    const keys = async () => (await Promise.all(SWEPT_KINDS.map((kind) => rt.store.list(kind.prefix)))).flat();
    const before = await keys();
    expect(before.length).toBeGreaterThanOrEqual(10);

    expect(await sweepExpired(rt.store, rt.clock.now)).toEqual({ examined: before.length, deleted: 0, complete: true });

    // After 16 minutes (a sign-in request's code is kept as long as its request, 15) the codes
    // are gone, the grant and the throttle records stay.
    await sweepExpired(rt.store, rt.clock.now + 16 * 60 * 1000);
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
    expect(await rt.store.list(RECORDS.usedCode.prefix)).toEqual([]);
    expect(await rt.store.list(RECORDS.grant.prefix)).toEqual([RECORDS.grant.key(tokens.access_token.slice(4, 26))]);

    // After 31 days the session and the sign-in history are gone; the grant lives 90 days.
    await sweepExpired(rt.store, rt.clock.now + 31 * DAY);
    expect(await rt.store.list(RECORDS.session.prefix)).toEqual([]);
    expect(await rt.store.list(RECORDS.signInEvent.prefix)).toEqual([]);
    expect(await rt.store.list(RECORDS.grant.prefix)).toHaveLength(1);

    await sweepExpired(rt.store, rt.clock.now + 91 * DAY);
    expect(await keys()).toEqual([]);
  });
});

describe("housekeeping: a bounded run, resumed by the next, oldest first", () => {
  const NOW = START_TIME;
  const HOUR = 60 * 60 * 1000;
  const historyEvent = (at: number) =>
    ({
      at,
      ip: "203.0.113.9",
      where: "account",
      method: "password",
      outcome: "failure",
      reason: "wrong password",
    }) as const;

  it("in a kind without age order, each run goes on after the last key the previous one examined", async () => {
    const rt = await testRuntime();
    // Thirty live codes whose keys sort first, then five expired ones.
    for (let i = 0; i < 30; i++)
      await rt.store.setIfNew(`${RECORDS.code.prefix}a${String(i).padStart(2, "0")}`, { expiresAt: NOW + HOUR });
    for (let i = 0; i < 5; i++) await rt.store.setIfNew(`${RECORDS.code.prefix}z${i}`, { expiresAt: NOW - 1 });
    const runs = [];
    for (let run = 0; run < 4; run++) runs.push(await sweepExpired(rt.store, NOW, 10));
    expect(runs.map((r) => r.examined)).toEqual([10, 10, 10, 5]);
    expect(runs.map((r) => r.complete)).toEqual([false, false, false, true]);
    expect(runs[3]!.deleted).toBe(5);
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(30);
    // The cursor is gone once a run finishes: the next one starts from the beginning.
    expect(await rt.store.get(RECORDS.sweepCursor.key())).toBeNull();
  });

  it("the sign-in history goes oldest first, and a run stops at the first live event", async () => {
    const rt = await testRuntime();
    const expired = [35, 34, 33, 32, 31].map((days) => NOW - days * DAY);
    for (const at of expired) await recordSignInEvent(rt.store, historyEvent(at));
    for (let i = 0; i < 40; i++) await recordSignInEvent(rt.store, historyEvent(NOW - i * HOUR));
    const left = async () => {
      const records = await Promise.all(
        (await rt.store.list(RECORDS.signInEvent.prefix)).map((key) => rt.store.get<{ at: number }>(key)),
      );
      return records.map((r) => r!.at).sort((a, b) => b - a);
    };

    const first = await sweepExpired(rt.store, NOW, 3);
    expect(first).toEqual({ examined: 3, deleted: 3, complete: false });
    // The three oldest went first.
    expect((await left()).filter((at) => at < NOW - 30 * DAY)).toEqual(expired.slice(3).reverse());

    const second = await sweepExpired(rt.store, NOW, 1000);
    expect(second.deleted).toBe(2);
    expect(second.complete).toBe(true);
    // Forty live events, and a run reads no more than one batch of them.
    const third = await sweepExpired(rt.store, NOW, 1000);
    expect(third.deleted).toBe(0);
    expect(third.examined).toBeLessThanOrEqual(10);
    expect(await rt.store.list(RECORDS.signInEvent.prefix)).toHaveLength(40);
  });
});

// The daily sweep, against the real local Blobs server and an injected clock.
import { describe, expect, it } from "vitest";
import { sweepExpired } from "../../netlify/lib/platform/housekeeping.ts";
import { approve, signedRequest, signInForCode } from "../helpers/endpoints.ts";
import { tokensFor } from "../helpers/tokens.ts";
import { testRuntime } from "../helpers/runtime.ts";

const DAY = 24 * 60 * 60 * 1000;

describe("housekeeping", () => {
  it("keeps what is live and deletes what has expired", async () => {
    const rt = await testRuntime();
    await signInForCode(rt);
    const tokens = await tokensFor(rt);
    await approve(rt, await signedRequest(rt), { password: "wrong" });
    await approve(rt, await signedRequest(rt), { remember: true });
    const keys = async () => (await Promise.all(["codes/", "used-codes/", "grants/", "throttle/", "sessions/", "events/"].map((p) => rt.store.list(p)))).flat();
    const before = await keys();
    expect(before.length).toBeGreaterThanOrEqual(10);

    expect(await sweepExpired(rt.store, rt.clock.now)).toEqual({ examined: before.length, deleted: 0 });

    // After 11 minutes the codes are gone, the grant and the throttle records stay.
    await sweepExpired(rt.store, rt.clock.now + 11 * 60 * 1000);
    expect(await rt.store.list("codes/")).toEqual([]);
    expect(await rt.store.list("used-codes/")).toEqual([]);
    expect(await rt.store.list("grants/")).toEqual([`grants/${tokens.access_token.slice(4, 26)}`]);

    // After 31 days the session and the sign-in history are gone; the grant lives 90 days.
    await sweepExpired(rt.store, rt.clock.now + 31 * DAY);
    expect(await rt.store.list("sessions/")).toEqual([]);
    expect(await rt.store.list("events/")).toEqual([]);
    expect(await rt.store.list("grants/")).toHaveLength(1);

    await sweepExpired(rt.store, rt.clock.now + 91 * DAY);
    expect(await keys()).toEqual([]);
  });
});

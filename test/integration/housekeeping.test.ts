// The daily sweep, against the real local Blobs server and an injected clock.
import { describe, expect, it } from "vitest";
import { sweepExpired } from "../../netlify/lib/platform/housekeeping.ts";
import { RECORDS, SWEPT_KINDS } from "../../netlify/lib/platform/records.ts";
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
    const keys = async () => (await Promise.all(SWEPT_KINDS.map((kind) => rt.store.list(kind.prefix)))).flat();
    const before = await keys();
    expect(before.length).toBeGreaterThanOrEqual(10);

    expect(await sweepExpired(rt.store, rt.clock.now)).toEqual({ examined: before.length, deleted: 0 });

    // After 11 minutes the codes are gone, the grant and the throttle records stay.
    await sweepExpired(rt.store, rt.clock.now + 11 * 60 * 1000);
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

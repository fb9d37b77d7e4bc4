// GET /auth waits for storage once: the app's approval (may errors go back to its redirect
// URI?) and what the sign-in page offers (the owner's passkeys, the session) are read at once,
// not the approval first and the rest after it. On Netlify each round trip is a network hop a
// person waits for before the sign-in page appears.
import { describe, expect, it } from "vitest";
import { roundTrips } from "../../scripts/bench/critical-path.ts";
import { approvedBefore } from "../helpers/approved-app.ts";
import { OperationCounter } from "../helpers/counting-store.ts";
import { authorize } from "../helpers/endpoints.ts";
import { authorizationParams } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

describe("GET /auth's storage", () => {
  it.each([
    ["an app the owner approved before", true],
    ["an app never approved", false],
  ])("for %s: one round trip, and the sign-in page is offered", async (_name, approved) => {
    const counter = new OperationCounter();
    const rt = await testRuntime({ wrapStore: (store) => counter.wrap(store) });
    if (approved) await approvedBefore(rt);
    counter.reset();
    const response = await authorize(rt, authorizationParams());
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^\/indieauth\/sign-in\/#request=/);
    // The connection log is written after the answer on Netlify (waitUntil); here, without it, before.
    const trace = counter.settled().filter((op) => !op.key?.startsWith(RECORDS.connectionLog.prefix));
    expect(trace.length).toBeGreaterThanOrEqual(2);
    expect(roundTrips(trace)).toBe(1);
  });
});

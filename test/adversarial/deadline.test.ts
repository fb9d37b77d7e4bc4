// A deadline ends the work it abandons: storage requests still running when a request's
// deadline passes are aborted, so one slow request never degrades the next one in the same
// function instance. And it counts storage's time, not this thread's wait for its turn (a busy
// machine under netlify dev: platform/storage-deadline.ts). Blobs here is the real local server behind a proxy that serves a few
// requests at a time (like a server whose workers are busy) and can stall: a stalled request
// keeps its worker until its client gives up on it.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { introspectionEndpoint } from "../../netlify/lib/endpoints/token-verification.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { startFaultyBlobs, type FaultyBlobs } from "../helpers/faulty-blobs.ts";
import { BASE } from "../helpers/requests.ts";
import { tokensFor } from "../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const WORKERS = 4;
/** Shorter than production's STORAGE_DEADLINE_MS, so that the stall costs the suite little, yet
 * long enough that a busy machine answering the request after it never passes it. */
const DEADLINE_MS = 2000;

let blobs: FaultyBlobs;
let rt: TestRuntime;
let serverLog: MockInstance<typeof console.error>;

beforeAll(async () => {
  blobs = await startFaultyBlobs({ workers: WORKERS });
});
afterAll(async () => {
  await blobs?.close();
});
beforeEach(async () => {
  serverLog = vi.spyOn(console, "error").mockImplementation(() => undefined);
  blobs.mode = "pass";
  rt = await testRuntime();
});
afterEach(() => serverLog.mockRestore());

const introspect = (token: string, store = rt.store) =>
  introspectionEndpoint(
    new Request(`${BASE}/introspect`, { method: "POST", headers: { Authorization: `Bearer ${token}` } }),
    { ...rt, store },
  );

describe("a storage deadline", () => {
  it("answers 503 while storage stalls, and the next request of the same instance normally once it is back", async () => {
    // Issued through the proxy while it passes everything, with the usual deadline.
    const patient = blobStore(rt.storeName, { connection: blobs.connection });
    const tokens = await tokensFor({ ...rt, store: patient });
    const store = blobStore(rt.storeName, { connection: blobs.connection, deadlineMs: DEADLINE_MS });

    blobs.mode = "hang";
    const stalled = await Promise.all(Array.from({ length: WORKERS }, () => introspect(tokens.access_token, store)));
    expect(stalled.map((r) => r.status)).toEqual(Array.from({ length: WORKERS }, () => 503));

    blobs.mode = "pass";
    const next = await introspect(tokens.access_token, store);
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ active: true });
  });
});

/** This thread cannot run for `ms`: as when a busy machine gives it no turn. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: timers come due, input waits in its socket
  }
}

describe("a storage deadline measures storage, not the machine's queue", () => {
  const SHORT_MS = 1500;
  /** Past the deadline, within the operation's bound on its wall time (twice the deadline). */
  const STALL_MS = 1.3 * SHORT_MS;

  it("a thread that cannot run before its request is sent is not answered 503 for that wait", async () => {
    const store = blobStore(rt.storeName, { deadlineMs: SHORT_MS });
    const read = store.get(RECORDS.revocations.key());
    // The read has begun (its deadline with it); its request has not been sent yet.
    stall(STALL_MS);
    await expect(read).resolves.toBeNull();
  });

  it("an answer that arrived while the thread could not run is read, not refused", async () => {
    const store = blobStore(rt.storeName, { deadlineMs: SHORT_MS });
    // The thread stops right after its request is on the wire (the microtask after the write),
    // past its deadline; storage, another process, answers meanwhile.
    let stalled = false;
    const onSend = () => {
      if (!stalled) queueMicrotask(() => stall(STALL_MS));
      stalled = true;
    };
    subscribe("undici:client:sendHeaders", onSend);
    try {
      await expect(store.get(RECORDS.revocations.key())).resolves.toBeNull();
    } finally {
      unsubscribe("undici:client:sendHeaders", onSend);
    }
    expect(stalled).toBe(true);
  });
});

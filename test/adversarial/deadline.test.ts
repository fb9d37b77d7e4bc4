// A deadline ends the work it abandons: storage requests still running when a request's
// deadline passes are aborted, so one slow request never degrades the next one in the same
// function instance. Blobs here is the real local server behind a proxy that serves a few
// requests at a time (like a server whose workers are busy) and can stall: a stalled request
// keeps its worker until its client gives up on it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { introspectionEndpoint } from "../../netlify/lib/endpoints/token-verification.ts";
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
  introspectionEndpoint(new Request(`${BASE}/introspect`, { method: "POST", headers: { Authorization: `Bearer ${token}` } }), { ...rt, store });

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

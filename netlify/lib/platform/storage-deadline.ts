// A storage operation's deadline measures storage, not the machine's queue (store.ts uses it).
//
// Measured under `netlify dev` with 200 requests at once (docs/performance.md, "Bursts"): every
// request runs in a worker thread of its own, 200 threads share two cores, and a thread waits
// for its turn. A deadline timer started when the operation was called counted the time before
// its HTTP request was even sent (the first fetch of a fresh thread, and a connection whose
// address lookup waited behind the other threads' file reads: 0.6 s typically, up to 5 s),
// and a timer that comes due while its thread cannot run fires as soon as the thread runs
// again, ahead of an answer already waiting in its socket. So here:
// - the deadline starts when the operation's first HTTP request is handed to its connection
//   (undici's `undici:client:sendHeaders`, told apart by the async context it was made in); the
//   wait before has a bound of its own, of the same length (a connection that never opens);
// - each counts time in slices, and a slice that comes due late (the thread could not run)
//   counts its own length only: a thread's stalls are not storage's time;
// - past the deadline, the answer is given a turn of the event loop to arrive first;
// - and an operation ends at `wallMs` whatever happened, within the platform's function
//   timeout, so that a starved request still gets a clear "try again".
// On Netlify a function instance serves one request at a time: there, the counted time is the
// wall time, and the deadline is what it always was, on the wire.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";

/** How often the counting slices end. */
const SLICE_MS = 100;
/** A slice that took longer than this counted this much. */
const LONGEST_SLICE_MS = SLICE_MS * 1.5;
/** An operation's longest wall time, in deadlines, unless told. */
const WALL_FACTOR = 2;

interface Operation {
  /** Its first HTTP request was sent. */
  sent(): void;
}

const operations = new AsyncLocalStorage<Operation>();
const requests = new WeakMap<object, Operation>();
let watching = false;

/** Follows fetch's requests: each made inside an operation belongs to it (its async context). */
function watchRequests(): void {
  if (watching) return;
  watching = true;
  const requestOf = (message: unknown) =>
    typeof message === "object" && message !== null ? (message as { request?: unknown }).request : undefined;
  subscribe("undici:request:create", (message) => {
    const request = requestOf(message);
    const operation = operations.getStore();
    if (operation && typeof request === "object" && request !== null) requests.set(request, operation);
  });
  subscribe("undici:client:sendHeaders", (message) => {
    const request = requestOf(message);
    if (typeof request === "object" && request !== null) requests.get(request)?.sent();
  });
}

/** Runs `work`, aborting its signal (and rejecting with `expired()`) once it has waited
 * `deadlineMs` of counted time for its first request to be sent, or `deadlineMs` since, or
 * `wallMs` in all. */
export function withStorageDeadline<T>(
  deadlineMs: number,
  work: (signal: AbortSignal) => Promise<T>,
  expired: () => Error,
  wallMs = WALL_FACTOR * deadlineMs,
): Promise<T> {
  watchRequests();
  const controller = new AbortController();
  const started = performance.now();
  let last = started;
  let counted = 0;
  let sent = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let settled = false;
  return new Promise<T>((resolve, reject) => {
    const end = () => {
      if (settled) return;
      settled = true;
      const error = expired();
      reject(error);
      controller.abort(error);
    };
    const slice = () => {
      const now = performance.now();
      counted += Math.min(now - last, LONGEST_SLICE_MS);
      last = now;
      const left = deadlineMs - counted;
      // Due: the answer, if it came while this thread could not run, is read first.
      if (left <= 0 || now - started >= wallMs) return void setImmediate(end);
      timer = setTimeout(slice, Math.min(SLICE_MS, left, wallMs - (now - started)));
    };
    const operation: Operation = {
      sent() {
        if (sent) return;
        sent = true;
        // The wire's own count starts now; the wait before it had its own.
        counted = 0;
        last = performance.now();
      },
    };
    timer = setTimeout(slice, Math.min(SLICE_MS, deadlineMs));
    Promise.resolve()
      .then(() => operations.run(operation, () => work(controller.signal)))
      .then(
        (value) => {
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          settled = true;
          clearTimeout(timer);
          reject(error);
        },
      );
  });
}

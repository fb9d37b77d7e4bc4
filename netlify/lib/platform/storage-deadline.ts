// A storage operation's deadline measures storage, not the machine's queue (docs/performance.md,
// "Bursts"): it starts when the first HTTP request is handed to its connection (undici's
// `undici:client:sendHeaders`, told apart by async context; the wait before has a bound of its
// own, of the same length), counts time in slices of which a late one (the thread could not run)
// counts its own length only, gives a waiting answer a turn of the event loop before it ends
// anything, and ends the operation at `wallMs` whatever happened. On Netlify it is the wall time.
import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";

const SLICE_MS = 100;
/** A slice that took longer than this counted this much. */
const LONGEST_SLICE_MS = SLICE_MS * 1.5;
/** An operation's longest wall time, in deadlines, unless told. */
const WALL_FACTOR = 2;

interface Operation {
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
      .then(resolve, reject)
      .finally(() => {
        settled = true;
        clearTimeout(timer);
      });
  });
}

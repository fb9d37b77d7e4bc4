// Who hears the server's events (platform/events.ts), and when: the connection log, the alerts
// and the sign-in history, each making its own writes; a failure is logged, never answered. What
// the answer need not wait for goes to waitUntil where the platform has it, else within a deadline.
import { afterAnswer, type WaitUntil } from "../platform/after-answer.ts";
import type { Config } from "../platform/config.ts";
import type { Emit, ServerEvent } from "../platform/events.ts";
import type { Runtime } from "../platform/runtime.ts";
import { SIGN_IN_FAILURES } from "../pages/sign-in-failures.ts";
import { alert, isAlert } from "./alerts.ts";
import { connectionLogSubscriber } from "./connection-log.ts";
import { countRefused, recordSignInEvent } from "./sign-in-events.ts";

export interface EventTarget {
  rt: Pick<Runtime, "store" | "now">;
  config: Pick<Config, "notify" | "me">;
  waitUntil?: WaitUntil;
}

/** The sign-in history's write for an event, and whether the answer waits for it. */
function historyOf(target: EventTarget, event: ServerEvent): { work: () => Promise<unknown>; beforeAnswer: boolean } | null {
  const { store } = target.rt;
  if (event.type === "sign-in-throttled") {
    // A refusal stays cheap: counted after its answer (sign-in-events.ts bounds the writes).
    return { work: () => countRefused(store, event.heldBySince), beforeAnswer: false };
  }
  if (event.type !== "sign-in") return null;
  const { attempt, failure } = event;
  const view = { ...attempt, outcome: failure ? ("failure" as const) : ("success" as const), ...(failure ? { reason: SIGN_IN_FAILURES[failure].logged } : {}) };
  // A credential's attempt is in the history by its answer (the console's next read shows it);
  // a session's approval after it, where the person waits only for the code.
  return { work: () => recordSignInEvent(store, view), beforeAnswer: attempt.method !== "session" };
}

/** The events of one request, to every subscriber (the blog's functions have the log's alone:
 * resource/server.ts). */
export function eventSubscribers(target: EventTarget): Emit {
  const { waitUntil } = target;
  const log = connectionLogSubscriber(target);
  return async (...events) => {
    const work: Promise<void>[] = [log(...events)];
    for (const event of events) {
      if (isAlert(event)) work.push(alert({ rt: target.rt, config: target.config, requester: { waitUntil } }, event));
      const history = historyOf(target, event);
      if (!history) continue;
      const written = Promise.resolve()
        .then(async () => void (await history.work()))
        .catch((error: unknown) => console.warn(`indieauth: the sign-in history was not written: ${error instanceof Error ? error.message : String(error)}`));
      work.push(history.beforeAnswer ? written : afterAnswer(waitUntil, written));
    }
    await Promise.all(work);
  };
}

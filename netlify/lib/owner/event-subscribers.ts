// Who hears the server's events (platform/events.ts), and when: the connection log, the alerts
// and the sign-in history, each making its own writes; a failure is logged, never answered. What
// the answer need not wait for goes to waitUntil where the platform has it, else within a deadline.
import { afterAnswer } from "../platform/after-answer.ts";
import type { Emit, EventTarget, ServerEvent } from "../platform/events.ts";
import { SIGN_IN_FAILURES } from "../pages/sign-in-failures.ts";
import { alert, isAlert } from "./alerts.ts";
import { connectionLogSubscriber } from "./connection-log.ts";
import { countRefused, recordSignInEvent } from "./sign-in-events.ts";

/** The sign-in history's write for an event, if any. A credential's attempt is in the history by
 * its answer (the console's next read shows it); a session's approval (the person waits only for
 * the code) and a throttled attempt (kept cheap: sign-in-events.ts bounds the writes) after it. */
function toHistory({ rt: { store }, waitUntil }: EventTarget, event: ServerEvent): Promise<void> | undefined {
  const written = (work: () => Promise<unknown>) =>
    Promise.resolve()
      .then(work)
      .then(
        () => undefined,
        (error: unknown) =>
          console.warn(
            `indieauth: the sign-in history was not written: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
  if (event.type === "sign-in-throttled")
    return afterAnswer(
      waitUntil,
      written(() => countRefused(store, event.heldBySince)),
    );
  if (event.type !== "sign-in") return undefined;
  const { attempt, failure } = event;
  const view = {
    ...attempt,
    outcome: failure ? ("failure" as const) : ("success" as const),
    ...(failure ? { reason: SIGN_IN_FAILURES[failure].logged } : {}),
  };
  const write = written(() => recordSignInEvent(store, view));
  return attempt.method === "session" ? afterAnswer(waitUntil, write) : write;
}

/** The events of one request, to every subscriber (the blog's functions have the log's alone:
 * resource/server.ts). */
export function eventSubscribers(target: EventTarget): Emit {
  const log = connectionLogSubscriber(target);
  return async (...events) => {
    const alerts = events
      .filter(isAlert)
      .map((event) => alert({ rt: target.rt, config: target.config, requester: target }, event));
    await Promise.all([log(...events), ...alerts, ...events.map((event) => toHistory(target, event))]);
  };
}

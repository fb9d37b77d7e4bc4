// Who hears the server's events (platform/events.ts), and when: the connection log, the alerts
// and the sign-in history, each turning an event into its own writes. A subscriber's failure is
// logged, never answered. What the answer need not wait for goes to the platform's waitUntil
// where it offers one (Netlify does), else is waited for within each subscriber's deadline.
import { afterAnswer, type WaitUntil } from "../platform/after-answer.ts";
import type { Config } from "../platform/config.ts";
import type { Emit, ServerEvent } from "../platform/events.ts";
import type { Runtime } from "../platform/runtime.ts";
import { SIGN_IN_FAILURES } from "../pages/sign-in-failures.ts";
import { alert, type AlertEvent } from "./alerts.ts";
import { connectionLogSubscriber } from "./connection-log.ts";
import { countRefused, recordSignInEvent } from "./sign-in-events.ts";

export interface EventTarget {
  rt: Pick<Runtime, "store" | "now">;
  config: Pick<Config, "notify" | "me">;
  waitUntil?: WaitUntil;
}

const warned = (what: string) => (error: unknown) => console.warn(`indieauth: ${what}: ${error instanceof Error ? error.message : String(error)}`);

/** The alert an event is worth to the owner, if any. */
function alertOf(event: ServerEvent): AlertEvent | null {
  switch (event.type) {
    case "first-approval":
      return { kind: "app-approved", clientId: event.clientId };
    case "passkey-added":
    case "passkey-removed":
      return { kind: event.type, name: event.name };
    case "new-device-sign-in":
      return { kind: event.type, device: event.device };
    case "throttle-engaged":
      return { kind: event.type };
    default:
      return null;
  }
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
      const message = alertOf(event);
      if (message) work.push(alert({ rt: target.rt, config: target.config, requester: { waitUntil } }, message));
      const history = historyOf(target, event);
      if (!history) continue;
      const written = Promise.resolve().then(async () => void (await history.work())).catch(warned("the sign-in history was not written"));
      work.push(history.beforeAnswer ? written : afterAnswer(waitUntil, written));
    }
    await Promise.all(work);
  };
}

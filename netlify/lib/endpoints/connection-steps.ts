// What the sign-in endpoints tell the connection doctor (owner/connection-log.ts): a wrapper of
// an endpoint's handler (sign-in-steps.ts, token-steps.ts), so that its call site stays one
// line, which reads the outcome from what the handler answered or threw. The log is written
// after the answer where the platform offers waitUntil (Netlify does), else within
// LOG_DEADLINE_MS at most; a failure there never changes an answer.
import { AnsweredError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/endpoint.ts";
import { logConnectionSteps, type StepEvent } from "../owner/connection-log.ts";
import { parseClientId } from "../core/urls.ts";

type Outcome = { response: Response } | { error: unknown };
export type Steps<P extends string = never> = (ctx: RequestContext<P>, outcome: Outcome, at: number) => Promise<StepEvent[]>;

/** Runs the handler, then (after the answer) logs the steps its outcome shows. */
export function logged<P extends string>(run: Handler<P>, steps: Steps<P>): Handler<P> {
  return async (ctx) => {
    const at = ctx.rt.now();
    const target = { store: ctx.rt.store, waitUntil: ctx.requester.waitUntil };
    try {
      const response = await run(ctx);
      await logConnectionSteps(target, () => steps(ctx, { response: response.clone() }, at));
      return response;
    } catch (error) {
      await logConnectionSteps(target, () => steps(ctx, { error }, at));
      throw error;
    }
  };
}

/** The OAuth error and its words, for an error the frame answers as one. */
export function refusal(error: unknown): Pick<StepEvent, "error" | "detail"> | null {
  return error instanceof AnsweredError ? { error: error.error, detail: error.description } : null;
}

/** A client_id worth a log entry: one a sign-in could come from. */
export function loggableClient(raw: string | null): string | null {
  if (!raw) return null;
  const parsed = parseClientId(raw);
  return parsed.ok ? parsed.url.href : null;
}


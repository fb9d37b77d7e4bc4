// Work an answer need not wait for (a log line, an alert): handed to the platform's waitUntil
// where it offers one (Netlify does: the function runs on after the response has gone), else
// waited for here, at most `deadlineMs` when one is given (the work itself goes on).

export type WaitUntil = ((work: Promise<unknown>) => void) | undefined;

/** Resolves once the work is handed over, or done, or past its deadline. Never rejects: `work`
 * must not either (callers catch and log their own failures). */
export async function afterAnswer(waitUntil: WaitUntil, work: Promise<unknown>, deadlineMs?: number): Promise<void> {
  if (waitUntil) {
    try {
      waitUntil(work);
      return;
    } catch {
      // The platform refused the work: waited for below, as without waitUntil.
    }
  }
  if (deadlineMs === undefined) {
    await work;
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)))]);
  clearTimeout(timer);
}

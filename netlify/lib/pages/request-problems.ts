// What the person reads when a sign-in request cannot be used, and what to do about it: the
// same words on the sign-in page (which asks the server before it asks for the password) and
// on the page the approve step answers with. Also the contract of that question:
// POST /auth/approve/check (endpoints/request-check.ts), asked by site/scripts/sign-in.ts.
import type { RequestProblem } from "./request-object-shape.ts";

export const REQUEST_PROBLEMS: Readonly<Record<RequestProblem, { title: string; said: string }>> = {
  expired: {
    title: "This sign-in request has expired",
    said: "A sign-in request is good for 15 minutes, and this one is older. Nothing was approved.",
  },
  altered: {
    title: "This sign-in request was changed",
    said: "It is not the request this server made: something changed it on the way here, or another server made it, or it was made before this server's SECRET changed. Nothing was approved.",
  },
  incomplete: {
    title: "This sign-in request is incomplete",
    said: "The address of this page was cut short or garbled, perhaps when it was copied. Nothing was approved.",
  },
};

/** What to do about any of them. */
export const START_AGAIN = "Go back to the app and sign in again: it will send you here with a new request.";

/** The answer of POST /auth/approve/check (body: `request=<the signed request>`), always 200:
 * usable, and for how many more seconds; or why not. */
export type RequestCheckAnswer = { usable: true; expires_in: number } | { usable: false; problem: RequestProblem };

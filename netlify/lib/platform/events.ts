// The server's events, as node-oidc-provider emits them: a handler says what happened when it
// knows it (its request context's `emit`, http/endpoint.ts); the connection log, the alerts and
// the sign-in history subscribe (owner/event-subscribers.ts). No answer is read back.
import type { SignInEventView } from "../pages/account-view.ts";
import type { SignInFailure } from "../pages/sign-in-failures.ts";
import type { WaitUntil } from "./after-answer.ts";
import type { Config } from "./config.ts";
import type { Runtime } from "./runtime.ts";

/** Where in a sign-in something happened: the request's checks, the client's document, a code
 * redeemed at /token, a refresh, a code redeemed at POST /auth for the profile URL. */
export type SignInStage = "request" | "document" | "code" | "refresh" | "profile";

/** What a handler knows of the sign-in it answers, said as soon as it knows it (ctx.knows): a
 * refusal the frame answers is emitted with it, at the stage the handler had reached. */
export interface Subject {
  clientId: string;
  stage: SignInStage;
  /** The PKCE challenge (GET /auth), the code (/token, POST /auth), the grant (a refresh). */
  challenge?: string;
  code?: string;
  grantId?: string;
}

export type ServerEvent =
  /** GET /auth read the client's document (or could not just now), and shows the consent page. */
  | { type: "document-read"; clientId: string; challenge: string; unread: boolean; clientName?: string }
  | { type: "consent-shown"; clientId: string; challenge: string }
  | { type: "approved"; clientId: string; challenge: string; code: string }
  | { type: "denied"; clientId: string; challenge: string }
  /** A code or refresh token redeemed: `grantId`, the grant /token made or renewed (none at POST /auth). */
  | { type: "redeemed"; subject: Subject; grantId?: string }
  /** A request refused with this OAuth error, at the subject's stage. */
  | { type: "refused"; subject: Subject; error: string; description: string }
  /** The blog's function refused a token of this grant (resource/server.ts), for this reason. */
  | { type: "resource-refused"; grantId: string; reason: string }
  /** The password or a passkey approved an app for the first time. */
  | { type: "app-approved"; clientId: string }
  | { type: "passkey-added"; name: string }
  | { type: "passkey-removed"; name: string }
  | { type: "new-device-sign-in"; device: string }
  /** A wrong credential while the overall guessing limit is in force. */
  | { type: "throttle-engaged" }
  /** A credential or session checked: in the history before the answer, except a session's approval. */
  | { type: "sign-in"; attempt: Omit<SignInEventView, "outcome" | "reason">; failure?: SignInFailure }
  /** An attempt the throttle refused, held back by a failure made at `heldBySince`. */
  | { type: "sign-in-throttled"; heldBySince: number };

/** Resolves once every subscriber has what it needs (written, or handed to the platform to write
 * after the answer); never rejects: a subscriber's failure never changes an answer. */
export type Emit = (...events: ServerEvent[]) => Promise<void>;

/** What a subscriber needs of the request whose events it hears. */
export interface EventTarget {
  rt: Pick<Runtime, "store" | "now">;
  config: Pick<Config, "notify" | "me">;
  waitUntil?: WaitUntil;
}

/** Who hears an endpoint's events, made for each request. Each endpoint names its own
 * (http/endpoint.ts), so a function bundles only the subscribers its events reach: the CORS-open
 * token endpoint the connection log alone, never the owner's sign-in history or alerts. */
export type Subscribers = (target: EventTarget) => Emit;

export const NO_SUBSCRIBERS: Subscribers = () => async () => {};

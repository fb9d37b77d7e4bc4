// Every refusal this server answers is one of these classes, and this module is the only
// source of error bodies (their roots are in answered-error.ts, a protected resource's Bearer
// refusals in bearer-errors.ts, dynamic registration's in registration-errors.ts: all exported
// from here). One class per OAuth error, as in panva/oidc-provider: each knows its
// code, its HTTP status, the headers it needs, and (`toClient`) whether it may travel back to
// the client's redirect_uri once that URI is verified (RFC 6749 4.1.2.1). The owner console
// has its own, non-OAuth refusals (ConsoleError). `http/answer-error.ts` decides how each is
// answered: JSON, a page for the person, or a redirect to the client.
import { REQUEST_PROBLEMS, START_AGAIN } from "./pages/request-problems.ts";
import type { RequestProblem } from "./pages/request-object-shape.ts";
import { AnsweredError, OAuthError, type ErrorBody } from "./answered-error.ts";

export { AnsweredError, OAuthError } from "./answered-error.ts";
export { BearerRefusal, InsufficientScope, InvalidBearerRequest, InvalidToken, MissingBearerToken } from "./bearer-errors.ts";
export { InvalidClientMetadata, InvalidRedirectUri } from "./registration-errors.ts";

export class InvalidRequest extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 400;
}
export class AccessDenied extends OAuthError {
  readonly error = "access_denied";
  readonly status = 403;
}
export class UnsupportedResponseType extends OAuthError {
  readonly error = "unsupported_response_type";
  readonly status = 400;
}
export class InvalidScope extends OAuthError {
  readonly error = "invalid_scope";
  readonly status = 400;
}
export class InvalidGrant extends OAuthError {
  readonly error = "invalid_grant";
  readonly status = 400;
}
export class UnsupportedGrantType extends OAuthError {
  readonly error = "unsupported_grant_type";
  readonly status = 400;
}
/** RFC 8707 2: the `resource` asked for is malformed, or not one this grant was made for. */
export class InvalidTarget extends OAuthError {
  readonly error = "invalid_target";
  readonly status = 400;
}

/** `prompt=none` (OIDC Core 3.1.2.6): answering needs the owner to sign in (no live session
 * here, or one that may not approve this app alone). */
export class InteractionLoginRequired extends OAuthError {
  readonly error = "login_required";
  readonly status = 400;
}
/** `prompt=none`: the owner is signed in, but every approval here is a click on the consent page. */
export class ConsentRequired extends OAuthError {
  readonly error = "consent_required";
  readonly status = 400;
}

/** RFC 6749 5.2: a client's authentication failed: 401, with a challenge in the scheme it used
 * when it tried the Authorization header (`challenge`), and none when it authenticated (or
 * should have) in the body. A back-channel answer: never sent to a redirect URI. */
export class InvalidClient extends OAuthError {
  readonly error = "invalid_client";
  readonly status = 401;
  override readonly toClient = false;
  constructor(description: string, readonly challenge = true) {
    super(description);
  }
  override headers(): Record<string, string> {
    return this.challenge ? { "WWW-Authenticate": 'Basic realm="indieauth"' } : {};
  }
}

export class TooManyAttempts extends OAuthError {
  readonly error = "temporarily_unavailable";
  readonly status = 429;
  override readonly toClient = false;
  override readonly title = "Too many attempts";
  constructor(description: string, readonly retryAfterSeconds: number) {
    super(description);
  }
  override headers(): Record<string, string> {
    return { "Retry-After": String(this.retryAfterSeconds) };
  }
}

/** The environment is incomplete: JSON endpoints name the variable, pages explain the setup. */
export class SetupIncomplete extends OAuthError {
  readonly error = "server_error";
  readonly status = 500;
  override readonly toClient = false;
  override readonly title = "Almost there: finish the setup";
  constructor(
    description: string,
    /** What is wrong and what to do, one sentence pair each. */
    readonly problems: readonly { message: string; fix: string }[],
    readonly development: boolean,
  ) {
    super(description);
  }
  override paragraphs(): string[] {
    const where = this.development
      ? "This IndieAuth server is running, but its environment variables are not complete yet. Set them in .env (or in your shell), then restart npm start:"
      : "This IndieAuth server is deployed, but its environment variables are not complete yet. Set them in Netlify (Site configuration, Environment variables), then redeploy:";
    return [where, ...this.problems.map((p) => `${p.message}. ${p.fix}.`)];
  }
}

const RETRY_AFTER_SECONDS = "30";

/** Storage down or slow, or a bug: nothing was completed, try again (logged on the server). */
export class TemporarilyUnavailable extends OAuthError {
  readonly error = "temporarily_unavailable";
  readonly status = 503;
  override readonly toClient = false;
  override readonly title = "Something went wrong";
  constructor(readonly what: string) {
    super(`${what}; try again in a moment.`);
  }
  override headers(): Record<string, string> {
    return { "Retry-After": RETRY_AFTER_SECONDS };
  }
  override paragraphs(): string[] {
    return [`${this.what}. No sign-in was completed; please try again in a moment.`];
  }
}

/** A body over the size limit, refused before it is parsed. */
export class PayloadTooLarge extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 413;
  override readonly toClient = false;
}

export class MethodNotAllowed extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 405;
  override readonly toClient = false;
  constructor(readonly allow: readonly string[]) {
    super(`This endpoint accepts ${allow.join(", ")} only.`);
  }
  override headers(): Record<string, string> {
    return { Allow: this.allow.join(", ") };
  }
}

/** A request whose client_id or redirect_uri cannot be trusted: shown to the person, never
 * redirected (RFC 6749 4.1.2.1). */
export class UntrustedRedirect extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 400;
  override readonly toClient = false;
  constructor(override readonly title: string, description: string) {
    super(description);
  }
  override paragraphs(): string[] {
    return [this.description, "For your safety you were not sent back to the app."];
  }
}

/** The signed sign-in request that came back from the page cannot be used: it expired, was
 * changed, or was cut short. Shown to the person, never sent to the redirect URI it names. */
export class UnusableSignInRequest extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 400;
  override readonly toClient = false;
  override readonly title: string;
  constructor(readonly problem: RequestProblem) {
    super(`${REQUEST_PROBLEMS[problem].said} ${START_AGAIN}`);
    this.title = REQUEST_PROBLEMS[problem].title;
  }
  override paragraphs(): string[] {
    return [REQUEST_PROBLEMS[this.problem].said, START_AGAIN];
  }
}

/** The signed sign-in request was approved before, and the app has had its code (or let it
 * expire): a code is never issued twice. Typically the Approve button pressed again, or the
 * page's form sent again from the browser's history, after the app got the first answer. */
export class SignInAlreadyAnswered extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 400;
  override readonly toClient = false;
  override readonly title = "You already approved this sign-in";
  constructor() {
    super("This sign-in request was approved once already, and the app has received its answer.");
  }
  override paragraphs(): string[] {
    return [this.description, "Go back to the app: you are probably signed in there. If you are not, start the sign-in again from the app."];
  }
}

// ---------------------------------------------------------------------------------------
// The owner console's own refusals: not OAuth, never sent to a client.

abstract class ConsoleError extends AnsweredError {}

/** No live session: sign in first. The body says which ways of signing in are open. */
export class LoginRequired extends ConsoleError {
  readonly error = "login_required";
  readonly status = 401;
  constructor(readonly signIn: { password: boolean; passkey: boolean }) {
    super("Sign in to see your account.");
  }
  override body(): ErrorBody {
    return { ...super.body(), signIn: this.signIn };
  }
}

/** A wrong password, or a passkey answer that does not verify. */
export class WrongCredentials extends ConsoleError {
  readonly error = "wrong_credentials";
  readonly status = 401;
}

/** A console path, app or passkey that does not exist. */
export class NotFound extends ConsoleError {
  readonly error = "not_found";
  readonly status = 404;
}

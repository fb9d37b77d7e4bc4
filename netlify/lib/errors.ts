// Every refusal this server answers, as data: its code, its HTTP status and whether it may travel
// back to the client's verified redirect_uri (`allowRedirect`, RFC 6749 4.1.2.1), declared by each,
// with no default a subclass could forget. How each is answered: http/error-response.ts.
import { REQUEST_PROBLEMS, START_AGAIN } from "./pages/request-problems.ts";
import type { RequestProblem } from "./pages/request-object-shape.ts";

/** The body of every refusal (JSON, or form-encoded for a client that asks for that). */
export interface ErrorBody {
  /** Both absent only where the standard wants no error information: a request without any credential. */
  error?: string;
  error_description?: string;
  [extra: string]: unknown;
}

interface PageLink {
  href: string;
  text: string;
}

export abstract class AnsweredError extends Error {
  abstract readonly error: string;
  abstract readonly status: number;
  abstract readonly allowRedirect: boolean;
  /** A way on from the page that shows it (e.g. back to the sign-in page). */
  link?: PageLink;

  constructor(readonly description: string) {
    super(description);
  }

  body(): ErrorBody {
    return { error: this.error, error_description: this.description };
  }

  headers(): Record<string, string> {
    return {};
  }

  withLink(link: PageLink): this {
    this.link = link;
    return this;
  }
}

function declared(error: string, status: number, allowRedirect: boolean) {
  return class extends AnsweredError {
    readonly error = error;
    readonly status = status;
    readonly allowRedirect = allowRedirect;
  };
}

// OAuth's own (RFC 6749 4.1.2.1, 5.2; RFC 8707; OIDC Core 3.1.2.6): to the client, once verified.

export class InvalidRequest extends declared("invalid_request", 400, true) {}
export class AccessDenied extends declared("access_denied", 403, true) {}
export class UnsupportedResponseType extends declared("unsupported_response_type", 400, true) {}
export class InvalidScope extends declared("invalid_scope", 400, true) {}
export class InvalidGrant extends declared("invalid_grant", 400, true) {}
export class UnsupportedGrantType extends declared("unsupported_grant_type", 400, true) {}
/** RFC 8707 2: the `resource` asked for is malformed, or not one this grant was made for. */
export class InvalidTarget extends declared("invalid_target", 400, true) {}
/** `prompt=none`: answering needs the owner to sign in (no live session here, or one that may
 * not approve this app alone). */
export class InteractionLoginRequired extends declared("login_required", 400, true) {}
/** `prompt=none`: the owner is signed in, but every approval here is a click on the consent page. */
export class ConsentRequired extends declared("consent_required", 400, true) {}

// Never sent to a redirect URI: back-channel answers, and what a person must see here.

/** RFC 6749 5.2: a client's authentication failed: 401, with a challenge in the scheme it used
 * when it tried the Authorization header (`challenge`), and none when it authenticated (or
 * should have) in the body. */
export class InvalidClient extends declared("invalid_client", 401, false) {
  constructor(
    description: string,
    readonly challenge = true,
  ) {
    super(description);
  }
  override headers(): Record<string, string> {
    return this.challenge ? { "WWW-Authenticate": 'Basic realm="indieauth"' } : {};
  }
}

/** RFC 7591 3.2.2: one or more of the registered redirect URIs is not one this server accepts. */
export class InvalidRedirectUri extends declared("invalid_redirect_uri", 400, false) {}
/** RFC 7591 3.2.2: a metadata value this server does not accept (a secret-based method, a grant it never issues). */
export class InvalidClientMetadata extends declared("invalid_client_metadata", 400, false) {}

export class TooManyAttempts extends declared("temporarily_unavailable", 429, false) {
  constructor(
    description: string,
    readonly retryAfterSeconds: number,
  ) {
    super(description);
  }
  override headers(): Record<string, string> {
    return { "Retry-After": String(this.retryAfterSeconds) };
  }
}

/** The environment is incomplete: JSON endpoints name the variable, pages explain the setup. */
export class SetupIncomplete extends declared("server_error", 500, false) {
  constructor(
    description: string,
    /** What is wrong and what to do, one sentence pair each. */
    readonly problems: readonly { message: string; fix: string }[],
    readonly development: boolean,
  ) {
    super(description);
  }
}

const RETRY_AFTER_SECONDS = "30";

/** Storage down or slow, or a bug: nothing was completed, try again (logged on the server). */
export class TemporarilyUnavailable extends declared("temporarily_unavailable", 503, false) {
  constructor(readonly what: string) {
    super(`${what}; try again in a moment.`);
  }
  override headers(): Record<string, string> {
    return { "Retry-After": RETRY_AFTER_SECONDS };
  }
}

/** A body over the size limit, refused before it is parsed. */
export class PayloadTooLarge extends declared("invalid_request", 413, false) {}

export class MethodNotAllowed extends declared("invalid_request", 405, false) {
  constructor(readonly allow: readonly string[]) {
    super(`This endpoint accepts ${allow.join(", ")} only.`);
  }
  override headers(): Record<string, string> {
    return { Allow: this.allow.join(", ") };
  }
}

/** A request whose client_id or redirect_uri cannot be trusted: shown to the person, never
 * redirected (RFC 6749 4.1.2.1). `heading` says which of the two, as the page's title. */
export class UntrustedRedirect extends declared("invalid_request", 400, false) {
  constructor(
    readonly heading: string,
    description: string,
  ) {
    super(description);
  }
}

/** The signed sign-in request that came back from the page cannot be used: it expired, was
 * changed, or was cut short. Shown to the person, never sent to the redirect URI it names. */
export class UnusableSignInRequest extends declared("invalid_request", 400, false) {
  constructor(readonly problem: RequestProblem) {
    super(`${REQUEST_PROBLEMS[problem].said} ${START_AGAIN}`);
  }
}

/** The signed sign-in request was approved before, and the app has had its code (or let it
 * expire): a code is never issued twice (the Approve button pressed again, say). */
export class SignInAlreadyAnswered extends declared("invalid_request", 400, false) {
  constructor() {
    super("This sign-in request was approved once already, and the app has received its answer.");
  }
}

// The owner console's own refusals: not OAuth, never sent to a client.

/** No live session: sign in first. The body says which ways of signing in are open. */
export class LoginRequired extends declared("login_required", 401, false) {
  constructor(readonly signIn: { password: boolean; passkey: boolean }) {
    super("Sign in to see your account.");
  }
  override body(): ErrorBody {
    return { ...super.body(), signIn: this.signIn };
  }
}

/** A wrong password, or a passkey answer that does not verify. */
export class WrongCredentials extends declared("wrong_credentials", 401, false) {}

/** A console path, app or passkey that does not exist. */
export class NotFound extends declared("not_found", 404, false) {}

// A protected resource's refusals (RFC 6750 3): each carries a Bearer challenge. Back-channel.

const REALM = 'Bearer realm="indieauth"';

/** RFC 9110 quoted-string. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, "\\$&")}"`;

/** A refusal of a Bearer token. A resource server adds where its RFC 9728 metadata is
 * (`resource_metadata`), so that a client can find the authorization server, and the scope it
 * needs (`scope`, RFC 6750 3), so that a client can ask for it. */
export abstract class BearerRefusal extends AnsweredError {
  readonly allowRedirect = false;
  #resourceParams: Record<string, string> = {};

  withResourceChallenge(params: { resourceMetadata?: string | undefined; scope?: string | undefined }): this {
    if (params.scope) this.#resourceParams.scope = params.scope;
    if (params.resourceMetadata) this.#resourceParams.resource_metadata = params.resourceMetadata;
    return this;
  }

  /** The challenge: the error's own parameters first, then the resource's. */
  protected challenge(params: Record<string, string>): Record<string, string> {
    const all = { ...params, ...this.#resourceParams, ...params };
    return {
      "WWW-Authenticate": [REALM, ...Object.entries(all).map(([name, value]) => `${name}=${quoted(value)}`)].join(", "),
    };
  }
  override headers(): Record<string, string> {
    return this.challenge({ error: this.error, error_description: this.description });
  }
}

/** No credential at all (RFC 6750 3.1): the client may not have known that one is needed, so
 * the answer is the bare challenge, "no error code or other error information", in the header or
 * in the body (the description stays for logs and pages). */
export class MissingBearerToken extends BearerRefusal {
  readonly error = "invalid_request";
  readonly status = 401;
  override body(): ErrorBody {
    return {};
  }
  override headers(): Record<string, string> {
    return this.challenge({});
  }
}
export class InvalidToken extends BearerRefusal {
  readonly error = "invalid_token";
  readonly status = 401;
}
export class InsufficientScope extends BearerRefusal {
  readonly error = "insufficient_scope";
  readonly status = 403;
  constructor(
    description: string,
    readonly scope: string,
  ) {
    super(description);
  }
  override headers(): Record<string, string> {
    return this.challenge({ error: this.error, scope: this.scope, error_description: this.description });
  }
}
/** RFC 6750 3.1 `invalid_request` at a protected resource: the token is sent in a way that is
 * not allowed (in the URL, or in the header and the body at once). 400, with the challenge. */
export class InvalidBearerRequest extends BearerRefusal {
  readonly error = "invalid_request";
  readonly status = 400;
}

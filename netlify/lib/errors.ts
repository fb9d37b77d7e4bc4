// One class per OAuth error, as in panva/oidc-provider. Each knows its code and HTTP status;
// `toClient` says whether it may travel back to a verified redirect_uri (RFC 6749 4.1.2.1).

export abstract class OAuthError extends Error {
  abstract readonly error: string;
  abstract readonly status: number;
  /** May go back to the client's redirect_uri once that URI is verified. */
  readonly toClient: boolean = true;
  constructor(readonly description: string) {
    super(description);
  }
}

export class InvalidRequest extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 400;
}
export class UnauthorizedClient extends OAuthError {
  readonly error = "unauthorized_client";
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
export class InvalidClient extends OAuthError {
  readonly error = "invalid_client";
  readonly status = 401;
}
export class InvalidToken extends OAuthError {
  readonly error = "invalid_token";
  readonly status = 401;
}
export class InsufficientScope extends OAuthError {
  readonly error = "insufficient_scope";
  readonly status = 403;
  constructor(description: string, readonly scope: string) {
    super(description);
  }
}
/** No credential at all (RFC 6750 3.1): the challenge carries no error code. */
export class MissingBearerToken extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 401;
}
export class TooManyAttempts extends OAuthError {
  readonly error = "temporarily_unavailable";
  readonly status = 429;
  override readonly toClient = false;
  constructor(description: string, readonly retryAfterSeconds: number) {
    super(description);
  }
}
export class ServerError extends OAuthError {
  readonly error = "server_error";
  readonly status = 500;
}
export class TemporarilyUnavailable extends OAuthError {
  readonly error = "temporarily_unavailable";
  readonly status = 503;
}

/** A request whose client_id or redirect_uri cannot be trusted: shown to the person, never
 * redirected (RFC 6749 4.1.2.1). */
export class UntrustedRedirect extends Error {
  constructor(readonly title: string, readonly description: string) {
    super(description);
  }
}

/** A body over the size limit, refused before it is parsed. */
export class PayloadTooLarge extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 413;
  override readonly toClient = false;
}

/** The owner console without a live session: sign in first. */
export class LoginRequired extends OAuthError {
  readonly error = "login_required";
  readonly status = 401;
  override readonly toClient = false;
}

/** A console path that does not exist. */
export class NotFound extends OAuthError {
  readonly error = "invalid_request";
  readonly status = 404;
  override readonly toClient = false;
}

/** A wrong password or a passkey answer that does not verify, on the console's API. */
export class InvalidCredentials extends OAuthError {
  readonly error = "access_denied";
  readonly status = 401;
  override readonly toClient = false;
}

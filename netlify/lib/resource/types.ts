// What the resource-server API answers (netlify-indieauth/resource). No imports: the package's
// type declarations start here and stay small.

/** A live access token, as the server issued it. */
export interface ActiveToken {
  active: true;
  /** The profile URL of the person who signed in. */
  me: string;
  /** The app the token was issued to. */
  clientId: string;
  /** The scopes granted, space-separated, as in introspection. */
  scope: string;
  /** The resource(s) the token was issued for (RFC 8707), when the app named any. */
  aud?: string | string[];
  /** When the token expires, in seconds since the epoch. */
  exp: number;
}

/** Why a token is refused:
 * - `missing`: the request carries no token;
 * - `invalid-request`: a token in the URL, or both in the header and in the body (RFC 6750 2);
 * - `malformed`: not a Bearer credential, or not of an access token's shape;
 * - `refresh-token`, `code`: a refresh token or an authorization code, not an access token;
 * - `unknown`: never issued, or replaced by a refresh;
 * - `revoked`, `expired`: as they say (same-site mode);
 * - `inactive`: the server's /introspect said `active: false` (other-site mode: it does not
 *   say why, RFC 7662 2.2);
 * - `wrong-resource`: issued for another resource than the one asked about, or for a resource
 *   when the caller names none (or, with `requireAudience`, for none). */
export type InactiveReason =
  | "missing"
  | "invalid-request"
  | "malformed"
  | "refresh-token"
  | "code"
  | "unknown"
  | "revoked"
  | "expired"
  | "inactive"
  | "wrong-resource";

export interface InactiveToken {
  active: false;
  reason: InactiveReason;
}

export type TokenVerification = ActiveToken | InactiveToken;

export interface VerifyOptions {
  /** This resource's identifier (an absolute URL, or a path on the request's site): a token
   * issued for another resource is refused as `wrong-resource`. A token issued for none (what
   * IndieAuth clients get) is good for every resource of the site, unless `requireAudience`.
   * A token issued for a resource (RFC 8707) is good there only: without `resource`, it is
   * always refused. Name it in every call. */
  resource?: string;
  /** Refuse a token that was not issued for `resource` itself (its `aud`), as MCP servers must
   * (MCP authorization; RFC 8707): tokens issued for no resource too. */
  requireAudience?: boolean;
}

export interface RequireOptions extends VerifyOptions {
  /** The scope(s) the request needs: one scope, several space-separated, or a list; all are needed.
   * `offline_access` is left out (a refresh token is the authorization server's business). */
  scope?: string | readonly string[];
}

/** The stable codes of what the API throws, to switch on (`err.code`, as jose's errors): the
 * messages are for people and may change. docs/resource-api.md lists them. */
export type ResourceErrorCode = "ERR_TOKEN_CHECK_UNAVAILABLE" | "ERR_RESOURCE_SETUP" | "ERR_RESOURCE_USAGE";

/** A token could not be checked: storage, or the server's /introspect, did not answer in
 * time or answered nonsense. Nothing is known about the token; `requireToken` answers 503. */
export class TokenCheckUnavailable extends Error {
  readonly code: ResourceErrorCode = "ERR_TOKEN_CHECK_UNAVAILABLE";
  constructor(what: string, cause?: unknown) {
    super(`token verification unavailable: ${what}`, { cause });
    this.name = "TokenCheckUnavailable";
  }
}

/** The API is not set up right (INDIEAUTH_SERVER, INTROSPECTION_TOKEN): the message names the
 * variable and what to do. `requireToken` answers 500 `server_error` with it. */
export class ResourceSetupError extends TokenCheckUnavailable {
  override readonly code = "ERR_RESOURCE_SETUP";
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(message);
    this.name = "ResourceSetupError";
  }
}

/** The blog's code asked something the API cannot answer (requireAudience without a resource,
 * an issuer that cannot be known): a bug to fix there, thrown at once. */
export class ResourceUsageError extends TypeError {
  readonly code: ResourceErrorCode = "ERR_RESOURCE_USAGE";
  constructor(message: string) {
    super(message);
    this.name = "ResourceUsageError";
  }
}

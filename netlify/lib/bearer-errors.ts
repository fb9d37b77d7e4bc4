// The refusals of a protected resource (RFC 6750 3): each carries a Bearer challenge. Part of
// errors.ts (which exports them), kept apart for size.
import { OAuthError, type ErrorBody } from "./answered-error.ts";

/** RFC 6750 3: a protected resource's refusals carry a Bearer challenge. */
const REALM = 'Bearer realm="indieauth"';

/** An auth-param value as an RFC 9110 quoted-string. */
const quoted = (value: string) => `"${value.replace(/["\\]/g, "\\$&")}"`;

/** A refusal of a Bearer token. A resource server adds where its RFC 9728 metadata is
 * (`resource_metadata`), so that a client can find the authorization server, and the scope it
 * needs (`scope`, RFC 6750 3), so that a client can ask for it. */
export abstract class BearerRefusal extends OAuthError {
  #resourceParams: Record<string, string> = {};

  withResourceChallenge(params: { resourceMetadata?: string | undefined; scope?: string | undefined }): this {
    if (params.scope) this.#resourceParams.scope = params.scope;
    if (params.resourceMetadata) this.#resourceParams.resource_metadata = params.resourceMetadata;
    return this;
  }

  protected challenge(params: Record<string, string>): Record<string, string> {
    const all = { ...params, ...this.#resourceParams, ...params };
    return { "WWW-Authenticate": [REALM, ...Object.entries(all).map(([name, value]) => `${name}=${quoted(value)}`)].join(", ") };
  }
}

/** No credential at all (RFC 6750 3.1): the client may not have known that one is needed, so
 * the answer is the bare challenge and no error code, in the header or in the body (which only
 * says, for a person reading it, what to send). `error` is never sent. */
export class MissingBearerToken extends BearerRefusal {
  readonly error = "invalid_request";
  readonly status = 401;
  override readonly toClient = false;
  // RFC 6750 §3.1: a request with no credentials gets the challenge alone, "no error code or
  // other error information" (the description stays for logs and pages, never in the body).
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
  override headers(): Record<string, string> {
    return this.challenge({ error: "invalid_token", error_description: this.description });
  }
}
export class InsufficientScope extends BearerRefusal {
  readonly error = "insufficient_scope";
  readonly status = 403;
  constructor(description: string, readonly scope: string) {
    super(description);
  }
  override headers(): Record<string, string> {
    return this.challenge({ error: "insufficient_scope", scope: this.scope, error_description: this.description });
  }
}

/** RFC 6750 3.1 `invalid_request` at a protected resource: the token is sent in a way that is
 * not allowed (in the URL, or in the header and the body at once). 400, with the challenge. */
export class InvalidBearerRequest extends BearerRefusal {
  readonly error = "invalid_request";
  readonly status = 400;
  override headers(): Record<string, string> {
    return this.challenge({ error: "invalid_request", error_description: this.description });
  }
}

// The refusals of dynamic client registration (RFC 7591 3.2.2): part of errors.ts (which exports
// them), kept apart for size. Back-channel answers: never sent to a redirect URI.
import { OAuthError } from "./answered-error.ts";

/** One or more of the registered redirect URIs is not one this server accepts. */
export class InvalidRedirectUri extends OAuthError {
  readonly error = "invalid_redirect_uri";
  readonly status = 400;
  override readonly toClient = false;
}

/** A metadata value is not one this server accepts (a secret-based method, a grant it never issues). */
export class InvalidClientMetadata extends OAuthError {
  readonly error = "invalid_client_metadata";
  readonly status = 400;
  override readonly toClient = false;
}

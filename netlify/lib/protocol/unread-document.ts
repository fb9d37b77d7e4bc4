// A code issued while its client's document could not be read (clients/discovery.ts: too slow,
// a network error, a status other than 404 or 410) is redeemed only once the document is read,
// and then as it declares: with its client assertion if it declares private_key_jwt (exactly as
// for a code issued with the document read; the grant then carries that for every refresh), to
// a redirect URI it allows. Still unreadable, the redemption is refused with invalid_client (RFC
// 6749 5.2: how the client must authenticate cannot be learned, so it cannot be authenticated)
// and nothing is used up: the client may try again while the code lasts. So a failure to read a
// client's document, whoever caused it, never makes the client weaker than its document.
import type { ClientInfo, KeyAuthentication } from "../core/client-shape.ts";
import { InvalidGrant, UntrustedRedirect } from "../errors.ts";
import { checkRedirectUriAllowed } from "./redirect-allowed.ts";
import { AssertionRefused } from "./client-assertion.ts";
import type { CodeRecord } from "./codes.ts";

/** Reads a client's document now (normal discovery, within its budget). */
export type DiscoverNow = (clientId: URL) => Promise<ClientInfo>;

/** How the code's client must authenticate: what its document declared at sign-in, or, for a
 * code issued while it could not be read, what it declares now. `basicSent`: the request came
 * with Basic credentials, so a refusal challenges (RFC 6749 5.2). */
export async function declaredAtRedemption(
  code: CodeRecord,
  discover: DiscoverNow,
  basicSent: boolean,
): Promise<KeyAuthentication | undefined> {
  if (code.documentUnread !== true) return code.authentication;
  const clientId = new URL(code.clientId);
  const client = await discover(clientId);
  if (client.unread === true) {
    throw new AssertionRefused(
      "This app's client information could not be read, so how it proves itself cannot be checked: try again in a minute.",
      basicSent,
    );
  }
  if (client.authenticationRefused === true) {
    throw new AssertionRefused(
      "This app's metadata document declares a way of proving itself that this server cannot hold it to.",
      basicSent,
    );
  }
  if (client.identityRefused === true) {
    throw new AssertionRefused(
      "This app's metadata document names another client_id, so it does not speak for this app.",
      basicSent,
    );
  }
  try {
    checkRedirectUriAllowed({ clientId, redirectUri: new URL(code.redirectUri), rawClientId: code.clientId }, client);
  } catch (error) {
    if (error instanceof UntrustedRedirect)
      throw new InvalidGrant(
        "The authorization code was issued for a redirect_uri that the app's metadata document does not list.",
      );
    throw error;
  }
  return client.authentication;
}

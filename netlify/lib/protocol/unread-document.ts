// A code issued while its client's document could not be read is redeemed only once it is
// read, and then as it declares (its assertion, a redirect URI it allows); still unreadable,
// invalid_client (RFC 6749 5.2: how it must authenticate cannot be learned) and nothing used
// up. So a failed read never makes a client weaker than its document.
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
  const refusal =
    client.unread === true
      ? "This app's client information could not be read, so how it proves itself cannot be checked: try again in a minute."
      : client.authenticationRefused === true
        ? "This app's metadata document declares a way of proving itself that this server cannot hold it to."
        : client.identityRefused === true
          ? "This app's metadata document names another client_id, so it does not speak for this app."
          : null;
  if (refusal !== null) throw new AssertionRefused(refusal, basicSent);
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

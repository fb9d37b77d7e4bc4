// Step 3 of GET /auth (protocol/authorization-request.ts), also asked again when a code issued
// while the client's document could not be read is redeemed (unread-document.ts): where the
// client may be sent.
import type { ClientInfo } from "../core/client-shape.ts";
import { UntrustedRedirect } from "../errors.ts";
import { isUnderClientPath, onClientOrigin, redirectUriMatches, sameOrigin } from "../core/urls.ts";

export interface TrustedTarget {
  clientId: URL;
  redirectUri: URL;
  /** client_id exactly as the request sent it. */
  rawClientId: string;
}

/** Step 3: the redirect URI shares the client's scheme, host and port, or the client
 * publishes it exactly (spec 4.2.2, 5.2); a native app's loopback URI, on any port (RFC 8252
 * 7.3). On the client's host but outside its path (a shared host: /~mallory/ beside
 * /~alice/app/), it must be among the URIs the client's document lists, when it lists any
 * (the query aside); when it lists none, the page shows it. This deployment as its own client
 * may use exactly its self-test page; an app that registered itself, exactly the URIs it registered. */
export function checkRedirectUriAllowed(target: TrustedTarget, client: ClientInfo): void {
  const { clientId, redirectUri } = target;
  if (client.own) {
    // This deployment itself: exactly its self-test page, none of its origin's other pages.
    if (client.redirectUris.includes(redirectUri.href)) return;
    throw new UntrustedRedirect(
      "This return address is not allowed",
      `The self-test of this server comes back only to ${client.redirectUris.join(", ")}, not to ${redirectUri.href}. Nothing was sent to it.`,
    );
  }
  if (client.redirectUris.some((uri) => redirectUriMatches(uri, redirectUri))) return;
  // An app that registered itself: exactly what it registered (a loopback URI on any port). Its
  // client_id is on this server, whose origin is no app's.
  if (client.registered) throw registeredElsewhere(client, redirectUri);
  const published = client.redirectUris.some((uri) => {
    const url = new URL(uri);
    return sameOrigin(url, redirectUri) && url.pathname === redirectUri.pathname;
  });
  if (
    onClientOrigin(clientId, redirectUri) &&
    (isUnderClientPath(clientId.href, redirectUri.href) || client.redirectUris.length === 0 || published)
  )
    return;
  // A refused metadata document publishes nothing; say why, for the app's developer.
  const why = client.unread
    ? " This server could not read the app's information just now: try again in a minute."
    : client.refused !== undefined
      ? ` The app's metadata document was not used: ${client.refused}.`
      : "";
  throw new UntrustedRedirect(
    "This app's return address is not allowed",
    `The app ${clientId.href} asked to send you to ${redirectUri.href}, which it does not publish as one of its redirect addresses. Nothing was sent to it.${why}`,
  );
}

function registeredElsewhere(client: ClientInfo, redirectUri: URL): UntrustedRedirect {
  if (client.refused !== undefined) {
    return new UntrustedRedirect(
      "This app's registration is not valid here",
      `The app's client_id looks like one this server gives apps that register themselves, but ${client.refused}. Nothing was sent to it. Remove the server from the app and add it again: the app then registers anew.`,
    );
  }
  return new UntrustedRedirect(
    "This app's return address is not allowed",
    `The app asked to send you to ${redirectUri.href}, which is not one of the redirect addresses it registered. Nothing was sent to it.`,
  );
}

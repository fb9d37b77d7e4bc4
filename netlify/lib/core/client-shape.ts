// What the server knows of a client app: what the sign-in page and the owner's console show
// (its own claims, all optional and never trusted: shown as text only), and what discovery
// (clients/) hands to the authorization request (protocol/) through the runtime (platform/).

export interface ClientDisplay {
  name?: string;
  logoUri?: string;
  /** The app's home page, when it names one. */
  uri?: string;
}

/** Only the fields shown, and only those that are set. */
export function clientDisplay(from: ClientDisplay): ClientDisplay {
  const display: ClientDisplay = {};
  if (from.name) display.name = from.name;
  if (from.logoUri) display.logoUri = from.logoUri;
  if (from.uri) display.uri = from.uri;
  return display;
}

export interface ClientInfo extends ClientDisplay {
  clientId: string;
  /** Absolute redirect URIs (URL.href form), deduplicated. */
  redirectUris: string[];
  /** Whether the client_id was fetched and what it serves was used (false: loopback client,
   * fetch failed, or the document was refused). */
  fetched: boolean;
  /** Read from a Client ID Metadata Document (JSON), not from an HTML page. */
  metadataDocument?: true;
  /** Why the client's metadata document was refused, for the person and the app's developer. */
  refused?: string;
  /** This deployment as its own client (clients/own-client.ts): exactly the listed redirect URIs (its
   * own pages), and at most these scopes. */
  own?: { scopes: readonly string[] };
}

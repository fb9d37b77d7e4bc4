// What the server knows of a client app: what the sign-in page and the owner's console show
// (its own claims, all optional and never trusted: shown as text only), and what discovery
// (clients/) hands to the authorization request (protocol/) through the runtime (platform/).
import { isLoopbackRedirect, urlOf } from "./urls.ts";

export interface ClientDisplay {
  name?: string;
  logoUri?: string;
  /** The app's home page, when it names one. */
  uri?: string;
  /** Its metadata document lists only loopback redirect URIs: any other program on the computer
   * could stand in for it, and the sign-in page warns (MCP authorization: SHOULD). Server-set. */
  loopbackOnly?: true;
  /** It registered itself here (POST /register): the sign-in page shows where it sends the answer
   * rather than its client_id, which is on this server. Server-set. */
  registered?: true;
}

/** What discovery found that the display is made from. */
type Discovered = ClientDisplay & { metadataDocument?: true; redirectUris?: readonly string[] };

function isLoopbackUri(uri: string): boolean {
  const url = urlOf(uri);
  return url !== null && isLoopbackRedirect(url);
}

/** Only the fields shown, and only those that are set. */
export function clientDisplay(from: Discovered): ClientDisplay {
  const display: ClientDisplay = {};
  if (from.name) display.name = from.name;
  if (from.logoUri) display.logoUri = from.logoUri;
  if (from.uri) display.uri = from.uri;
  const redirects = from.redirectUris ?? [];
  // A registered app's page says where it sends the answer, loopback included (its own words).
  if (from.registered === true) display.registered = true;
  else if (from.metadataDocument === true && redirects.length > 0 && redirects.every(isLoopbackUri))
    display.loopbackOnly = true;
  return display;
}

/** What this server read to know an app at sign-in: its own page (an IndieAuth client_id page,
 * or this server itself), or a Client ID Metadata Document (JSON: claude.ai's or chatgpt.com's is
 * the same for every user of the platform). Nothing (undefined) for a loopback client_id, never
 * fetched, or a page that could not be read or was refused. */
export type ClientRead = "page" | "metadata-document";

export function clientReadOf(client: Pick<ClientInfo, "fetched" | "metadataDocument">): ClientRead | undefined {
  if (!client.fetched) return undefined;
  return client.metadataDocument ? "metadata-document" : "page";
}

/** The asymmetric algorithms an assertion may be signed with (never HS*, never none). */
export const ASSERTION_ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

/** Where a client's public keys are: inline, or at an https URL fetched through the guard. */
export type ClientKeySource = { jwksUri: string } | { jwks: { keys: Record<string, unknown>[] } };

/** A client that must sign a client assertion (RFC 7523) at the token endpoint. */
export interface KeyAuthentication {
  method: "private_key_jwt";
  keys: ClientKeySource;
  /** The document's `token_endpoint_auth_signing_alg`, when it names one: only that is accepted. */
  alg?: string;
}

export interface ClientInfo extends ClientDisplay {
  clientId: string;
  /** Absolute redirect URIs (URL.href form), deduplicated. */
  redirectUris: string[];
  /** The client_id was fetched and what it serves used (false: loopback, failed fetch, refused). */
  fetched: boolean;
  /** Read from a Client ID Metadata Document (JSON), not from an HTML page. */
  metadataDocument?: true;
  /** The document declares private_key_jwt: the token endpoint requires its client assertion. */
  authentication?: KeyAuthentication;
  /** An https client_id whose document could not be read (too slow, a network error, a status
   * other than 404 or 410): nothing is known of how it authenticates. */
  unread?: true;
  /** Why the client's metadata document was refused, for the person and the app's developer. */
  refused?: string;
  /** Refused for how it says the app authenticates (a shared secret, keys missing, ambiguous):
   * the app cannot be held to it, so it is not let in as a public client either. */
  authenticationRefused?: true;
  /** Refused because the document names another client_id, or none (CIMD draft 4, 5.1): it may
   * be a copy of another app's document, so the sign-in stops rather than go on without it. */
  identityRefused?: true;
  /** This deployment as its own client (clients/own-client.ts): exactly the listed redirect URIs (its
   * own pages), and at most these scopes. */
  own?: { scopes: readonly string[] };
}

// This deployment as its own client: the home page's self-test signs in with client_id = the base
// URL. What it publishes is known here, so it is never fetched (locally, a loopback client_id
// could not be: spec 4.2). That origin holds every blog page: it may come back to exactly the
// self-test page (elsewhere the code would land among a page's scripts), and ask no more than it needs.
import { SELF_TEST_PAGE } from "../pages/paths.ts";
import type { ClientInfo } from "../core/client-shape.ts";

const OWN_CLIENT_NAME = "IndieAuth self-test";
/** The most the self-test may ask for. */
const OWN_CLIENT_SCOPES: readonly string[] = ["profile", "email"];

/** The self-test's client_id and its one redirect URI. */
function ownClient(baseUrl: string): { clientId: string; redirectUri: string } {
  return { clientId: `${baseUrl}/`, redirectUri: `${baseUrl}${SELF_TEST_PAGE}` };
}

/** What this deployment publishes as a client, when `clientId` is this deployment. */
export function ownClientInfo(baseUrl: string, clientId: URL): ClientInfo | undefined {
  const own = ownClient(baseUrl);
  if (clientId.href !== own.clientId) return undefined;
  return {
    clientId: own.clientId,
    name: OWN_CLIENT_NAME,
    redirectUris: [own.redirectUri],
    fetched: true,
    own: { scopes: OWN_CLIENT_SCOPES },
  };
}

/** Whether this is the self-test coming back to its own page (one of this server's pages). */
export function isOwnSelfTest(baseUrl: string, clientId: string, redirectUri: string): boolean {
  const own = ownClient(baseUrl);
  return clientId === own.clientId && redirectUri === own.redirectUri;
}

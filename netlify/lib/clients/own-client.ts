// This deployment as its own client: the home page's self-test signs in with client_id = the
// base URL and comes back to the self-test page. What it would publish is known here, so it is
// not fetched (locally it could not be: a loopback client_id is never fetched, spec 4.2).
import { SELF_TEST_PAGE } from "../pages/paths.ts";
import type { ClientInfo } from "./client-info.ts";

export const OWN_CLIENT_NAME = "IndieAuth self-test";

/** Client discovery that knows this deployment itself and asks `discover` about the rest. */
export function knowingItself(baseUrl: string, discover: (clientId: URL) => Promise<ClientInfo>): (clientId: URL) => Promise<ClientInfo> {
  const own = `${baseUrl}/`;
  return async (clientId) =>
    clientId.href === own ? { clientId: own, name: OWN_CLIENT_NAME, redirectUris: [`${baseUrl}${SELF_TEST_PAGE}`], fetched: true } : discover(clientId);
}

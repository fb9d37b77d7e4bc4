// /auth: GET starts a sign-in (the authorization request); POST redeems a code for the profile URL.
// The only function that discovers clients: it alone bundles the fetcher and its address guard
// (the HTML parser is loaded by name, when a client's page is HTML), and the only one that
// reads a resource's metadata for its default scopes.
import { discoverClient } from "../lib/clients/discovery.ts";
import { storedFetchFailures } from "../lib/clients/fetch-failures.ts";
import { lookUpResourceScopes } from "../lib/clients/resource-scopes.ts";
import { authorizationEndpoint } from "../lib/endpoints/auth.ts";
import { asFunction } from "../lib/platform/function-adapter.ts";

export default asFunction(authorizationEndpoint, {
  discover: (clientId, store) => discoverClient(clientId, { failures: storedFetchFailures(store) }),
  resourceScopes: (resource) => lookUpResourceScopes(resource),
});

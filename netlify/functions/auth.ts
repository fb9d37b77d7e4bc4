// /auth: GET starts a sign-in (the authorization request); POST redeems a code for the profile URL;
// GET /auth/logo serves an app's logo, fetched here.
// The only function that discovers clients: it alone bundles the fetcher and its address guard
// (the HTML parser is loaded by name, when a client's page is HTML), and the only one that
// reads a resource's metadata for its default scopes.
import { fetchLogoBytes } from "../lib/clients/client-logo.ts";
import { discoverClient } from "../lib/clients/discovery.ts";
import { storedFetchFailures } from "../lib/clients/fetch-failures.ts";
import { lookUpResourceScopes } from "../lib/clients/resource-scopes.ts";
import { authorizationEndpoint } from "../lib/endpoints/auth.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(authorizationEndpoint, {
  discover: (clientId, store) => discoverClient(clientId, { failures: storedFetchFailures(store) }),
  fetchLogo: fetchLogoBytes,
  resourceScopes: (resource, options) => lookUpResourceScopes(resource, options),
});

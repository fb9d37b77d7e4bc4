// /auth: GET starts a sign-in (the authorization request); POST redeems a code for the profile URL;
// GET /auth/logo serves an app's logo, fetched here.
// The function that discovers clients (with token, which reads a document only to redeem a code
// issued while it could not be read): it bundles the fetcher and its address guard (the HTML
// parser is loaded by name, when a client's page is HTML, and the Public Suffix List when a
// page is fetched), and the only one that reads a resource's metadata for its default scopes.
import { fetchLogoBytes } from "../lib/clients/client-logo.ts";
import { discoverClient } from "../lib/clients/discovery.ts";
import { storedFetchFailures } from "../lib/clients/fetch-failures.ts";
import { lookUpResourceScopes } from "../lib/clients/resource-scopes.ts";
import { authorizationEndpoint } from "../lib/endpoints/auth.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(authorizationEndpoint, {
  discover: (clientId, store, options) =>
    discoverClient(clientId, options?.atRedemption === true ? {} : { failures: storedFetchFailures(store) }),
  fetchLogo: fetchLogoBytes,
  resourceScopes: (resource, options) => lookUpResourceScopes(resource, options),
});

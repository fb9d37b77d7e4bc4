// /auth: GET starts a sign-in (the authorization request); POST redeems a code for the profile URL.
// The only function that discovers clients: it alone bundles the fetcher and its address guard
// (the HTML parser is loaded by name, when a client's page is HTML).
import { discoverClient } from "../lib/clients/discovery.ts";
import { storedFetchFailures } from "../lib/clients/fetch-failures.ts";
import { authorizationEndpoint } from "../lib/endpoints/auth.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(authorizationEndpoint, { discover: (clientId, store) => discoverClient(clientId, { failures: storedFetchFailures(store) }) });

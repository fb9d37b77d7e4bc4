// /token: access tokens (POST) and legacy verification (GET). It reads a client's document only
// to redeem a code issued while that document could not be read (protocol/unread-document.ts).
import { discoverClient } from "../lib/clients/discovery.ts";
import { tokenEndpoint } from "../lib/endpoints/token.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(tokenEndpoint, { discover: (clientId) => discoverClient(clientId) });

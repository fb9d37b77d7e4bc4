// /token: access tokens (POST) and legacy verification (GET).
import { tokenEndpoint } from "../lib/endpoints/token.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(tokenEndpoint);

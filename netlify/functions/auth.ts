// /auth: GET starts a sign-in (the authorization request); POST redeems a code for the profile URL.
import { authorizationEndpoint } from "../lib/endpoints/auth.ts";
import { asFunction } from "../lib/platform/function-adapter.ts";

export default asFunction(authorizationEndpoint);

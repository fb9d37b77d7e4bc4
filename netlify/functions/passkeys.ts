// /indieauth/api/passkeys: registering passkeys, and signing in to the console with one.
import { passkeysApi } from "../lib/endpoints/passkey-api.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(passkeysApi);

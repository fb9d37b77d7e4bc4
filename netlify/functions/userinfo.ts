// /userinfo: the owner's profile for a token with the profile scope.
import { userinfoEndpoint } from "../lib/endpoints/userinfo.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(userinfoEndpoint);

// /introspect: token verification (RFC 7662) for resource servers.
import { introspectionEndpoint } from "../lib/endpoints/token-verification.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(introspectionEndpoint);

// /introspect: token verification (RFC 7662) for resource servers.
import { introspectionEndpoint } from "../lib/endpoints/token-verification.ts";
import { asFunction } from "../lib/platform/function-adapter.ts";

export default asFunction(introspectionEndpoint);

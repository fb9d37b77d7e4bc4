// /revoke: token revocation (RFC 7009).
import { revocationEndpoint } from "../lib/endpoints/revocation.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(revocationEndpoint);

// /.well-known/oauth-authorization-server: RFC 8414 metadata.
import { metadataEndpoint } from "../lib/endpoints/metadata.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(metadataEndpoint);

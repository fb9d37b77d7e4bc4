// /.well-known/oauth-authorization-server
import { handleMetadata } from "../lib/endpoints/metadata.ts";
import { guarded } from "../lib/endpoints/guard.ts";
import { defaultRuntime } from "../lib/runtime.ts";

export default guarded(async (req: Request) => handleMetadata(req, defaultRuntime()), "json");

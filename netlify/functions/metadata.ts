// /.well-known/oauth-authorization-server
import { handleMetadata } from "../lib/endpoints/metadata.ts";
import { guarded } from "../lib/http/guard.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default guarded(async (req: Request) => handleMetadata(req, defaultRuntime()), "json");

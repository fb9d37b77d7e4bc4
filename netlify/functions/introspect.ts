// /introspect: token verification (RFC 7662) for resource servers.
import { guarded } from "../lib/http/guard.ts";
import { handleTokenVerification } from "../lib/endpoints/token-verification.ts";
import { methodNotAllowed, withCors } from "../lib/http/responses.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default withCors(
  guarded(async (req: Request) => (req.method === "POST" ? handleTokenVerification(req, defaultRuntime(), { readBody: true }) : methodNotAllowed(["POST"])), "json"),
  ["POST"],
);

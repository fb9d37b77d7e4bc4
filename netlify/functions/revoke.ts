// /revoke: token revocation (RFC 7009).
import { guarded } from "../lib/http/guard.ts";
import { handleRevocation } from "../lib/endpoints/revocation.ts";
import { methodNotAllowed, withCors } from "../lib/http/responses.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default withCors(
  guarded(async (req: Request) => (req.method === "POST" ? handleRevocation(req, defaultRuntime()) : methodNotAllowed(["POST"])), "json"),
  ["POST"],
);

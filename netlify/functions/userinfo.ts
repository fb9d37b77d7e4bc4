// /userinfo: the owner's profile for a token with the profile scope.
import { guarded } from "../lib/http/guard.ts";
import { handleUserinfo } from "../lib/endpoints/userinfo.ts";
import { methodNotAllowed, withCors } from "../lib/http/responses.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default withCors(
  guarded(async (req: Request) => (req.method === "GET" || req.method === "HEAD" ? handleUserinfo(req, defaultRuntime()) : methodNotAllowed(["GET"])), "json"),
  ["GET"],
);

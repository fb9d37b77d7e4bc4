// /auth: GET starts a sign-in (the authorization request).
import type { Context } from "@netlify/functions";
import { handleAuthorizationRequest } from "../lib/endpoints/authorize.ts";
import { methodNotAllowed } from "../lib/http.ts";
import { defaultRuntime } from "../lib/runtime.ts";
import { guarded } from "../lib/endpoints/guard.ts";

export default guarded(async (req: Request, _context: Context) => {
  if (req.method === "GET" || req.method === "HEAD") return handleAuthorizationRequest(req, defaultRuntime());
  return methodNotAllowed(["GET"]);
}, "page");

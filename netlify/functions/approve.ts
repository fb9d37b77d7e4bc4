// /auth/approve: the sign-in page's form (password, then the code).
import type { Context } from "@netlify/functions";
import { handleApprove } from "../lib/endpoints/approve.ts";
import { guarded } from "../lib/http/guard.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default guarded((req: Request, context: Context) => handleApprove(req, defaultRuntime(), { ip: context.ip, userAgent: req.headers.get("user-agent") ?? "" }), "page");

// /indieauth/api/passkeys: registering passkeys, and signing in to the console with one.
import type { Context } from "@netlify/functions";
import { guarded } from "../lib/http/guard.ts";
import { handlePasskeys } from "../lib/endpoints/passkeys.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default guarded(
  (req: Request, context: Context) => handlePasskeys(req, defaultRuntime(), { ip: context.ip, userAgent: req.headers.get("user-agent") ?? "" }),
  "json",
);

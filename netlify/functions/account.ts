// /indieauth/api/account: the owner console's API (overview, sign-in and -out, revocation).
import type { Context } from "@netlify/functions";
import { handleAccount } from "../lib/endpoints/account.ts";
import { guarded } from "../lib/http/guard.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default guarded(
  (req: Request, context: Context) => handleAccount(req, defaultRuntime(), { ip: context.ip, userAgent: req.headers.get("user-agent") ?? "" }),
  "json",
);

// /token: access tokens (POST) and legacy verification (GET).
import { guarded } from "../lib/http/guard.ts";
import { handleToken } from "../lib/endpoints/token.ts";
import { withCors } from "../lib/http/responses.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default withCors(guarded((req: Request) => handleToken(req, defaultRuntime()), "json"), ["GET", "POST"]);

// /token: access tokens (POST) and legacy verification (GET).
import { guarded } from "../lib/endpoints/guard.ts";
import { handleToken } from "../lib/endpoints/token.ts";
import { withCors } from "../lib/http.ts";
import { defaultRuntime } from "../lib/runtime.ts";

export default withCors(guarded((req: Request) => handleToken(req, defaultRuntime()), "json"), ["GET", "POST"]);

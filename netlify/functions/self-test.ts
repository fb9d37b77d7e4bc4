// /indieauth/self-test/me: does the owner's page link to this deployment?
import { guarded } from "../lib/http/guard.ts";
import { handleProfileLinksCheck } from "../lib/endpoints/self-test.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default guarded((req: Request) => handleProfileLinksCheck(req, defaultRuntime()), "json");

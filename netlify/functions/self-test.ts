// /indieauth/self-test/me: does the owner's page link to this deployment?
import { guarded } from "../lib/endpoints/guard.ts";
import { handleProfileLinksCheck } from "../lib/endpoints/self-test.ts";
import { defaultRuntime } from "../lib/runtime.ts";

export default guarded((req: Request) => handleProfileLinksCheck(req, defaultRuntime()), "json");

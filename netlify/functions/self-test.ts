// /indieauth/self-test/me: does the owner's page link to this deployment?
import { selfTestEndpoint } from "../lib/endpoints/self-test.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(selfTestEndpoint);

// /auth/approve: the sign-in page's form (password, session or passkey; then the code).
import { approveEndpoint } from "../lib/endpoints/approve.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(approveEndpoint);

// /indieauth/api/account: the owner console's API (overview, sign-in and -out, revocation).
import { accountApi } from "../lib/endpoints/account.ts";
import { asFunction } from "../lib/http/function-adapter.ts";

export default asFunction(accountApi);

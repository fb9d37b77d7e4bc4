// The owner approved the test app before, with the password: its redirect URI then gets error
// answers by redirect (endpoints/error-redirects.ts), and a session may approve it again. No
// vitest here.
import { rememberApproval } from "../../netlify/lib/owner/app-approvals.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import { CLIENT_ID, REDIRECT_URI } from "./requests.ts";

export async function approvedBefore<R extends Runtime>(
  rt: R,
  redirectUri = REDIRECT_URI,
  clientId = CLIENT_ID,
  scopes = ["profile"],
): Promise<R> {
  await rememberApproval(rt.store, { clientId, redirectUri, scopes, method: "password" }, rt.now());
  return rt;
}

// /auth: GET starts a sign-in (the authorization request); POST redeems a code for the
// profile URL.
import { handleAuthorizationRequest } from "../lib/endpoints/authorize.ts";
import { guarded } from "../lib/http/guard.ts";
import { handleProfileRedemption } from "../lib/endpoints/profile-redemption.ts";
import { methodNotAllowed } from "../lib/http/responses.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

const authorizationPage = guarded((req: Request) => handleAuthorizationRequest(req, defaultRuntime()), "page");
const profileRedemption = guarded((req: Request) => handleProfileRedemption(req, defaultRuntime()), "json");

export default async (req: Request): Promise<Response> => {
  if (req.method === "GET" || req.method === "HEAD") return authorizationPage(req);
  if (req.method === "POST") return profileRedemption(req);
  return methodNotAllowed(["GET", "POST"]);
};

// /auth: GET starts a sign-in, in the person's browser; POST redeems a code for the profile URL.
// /auth/logo: an app's logo, served from here (client-logo.ts).
import { endpoint, type Endpoint } from "../http/endpoint.ts";
import { CLIENT_LOGO_PATH } from "../pages/paths.ts";
import { authorize } from "./authorize.ts";
import { serveClientLogo } from "./client-logo.ts";
import { redeemForProfile } from "./profile-redemption.ts";
import { withAuthorizeLog, withProfileLog } from "./sign-in-steps.ts";

const signIn = endpoint({
  GET: { answers: "page", run: withAuthorizeLog(authorize) },
  // The code's redemption, as at the token endpoint (spec 5.3.1): form-encoded, no parameter twice.
  POST: { answers: "json", body: { accepts: "oauth-form", repeatable: ["resource"] }, run: withProfileLog(redeemForProfile) },
});

const clientLogo = endpoint({ GET: { answers: "json", run: serveClientLogo } });

export const authorizationEndpoint: Endpoint = (req, rt, requester) =>
  (new URL(req.url).pathname === CLIENT_LOGO_PATH ? clientLogo : signIn)(req, rt, requester);

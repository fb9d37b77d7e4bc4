// /auth: GET starts a sign-in, in the person's browser; POST redeems a code for the profile URL.
// /auth/logo: an app's logo, served from here (client-logo.ts).
import { eventSubscribers } from "../owner/event-subscribers.ts";
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import { endpoint, route, type Endpoint } from "../http/endpoint.ts";
import { CLIENT_LOGO_PATH } from "../pages/paths.ts";
import { authorize } from "./authorize.ts";
import { serveClientLogo } from "./client-logo.ts";
import { redeemForProfile, REDEMPTION_FIELDS } from "./profile-redemption.ts";

const signIn = endpoint<"discover" | "resourceScopes">({
  events: eventSubscribers,
  // Reads its query (protocol/authorization-request.ts); sends the browser to the sign-in page, or
  // back to the client once its redirect URI is verified.
  GET: route({ caller: "anyone", answers: "page", body: "none", redirects: "client", run: authorize }),
  // The code's redemption, as at the token endpoint (spec 5.3.1): form-encoded, no parameter twice.
  POST: route({
    caller: "anyone",
    answers: "json",
    body: { oauthForm: REDEMPTION_FIELDS, repeatable: ["resource"] },
    redirects: "none",
    run: redeemForProfile,
  }),
});

const clientLogo = endpoint<"fetchLogo">({
  events: NO_SUBSCRIBERS,
  GET: route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: serveClientLogo }),
});

export const authorizationEndpoint: Endpoint<"discover" | "resourceScopes" | "fetchLogo"> = (req, rt, requester) =>
  (new URL(req.url).pathname === CLIENT_LOGO_PATH ? clientLogo : signIn)(req, rt, requester);

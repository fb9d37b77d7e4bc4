// /auth: GET starts a sign-in, in the person's browser; POST redeems a code for the profile URL.
import { endpoint } from "../http/endpoint.ts";
import { authorize } from "./authorize.ts";
import { withAuthorizeLog } from "./sign-in-steps.ts";
import { redeemForProfile } from "./profile-redemption.ts";

export const authorizationEndpoint = endpoint({
  GET: { answers: "page", run: withAuthorizeLog(authorize) },
  POST: { answers: "json", run: redeemForProfile },
});

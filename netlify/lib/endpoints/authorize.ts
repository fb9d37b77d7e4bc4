// GET /auth: check the authorization request, then hand it, signed, to the static sign-in page.
import { knowingItself } from "../clients/own-client.ts";
import { InvalidRequest } from "../errors.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { redirect } from "../http/responses.ts";
import { HOME_PAGE, SIGN_IN_PAGE } from "../pages/paths.ts";
import { writeSignInFragment } from "../pages/sign-in-fragment.ts";
import { checkAuthorizationRequest } from "../protocol/authorization-request.ts";
import { MAX_REQUEST_OBJECT_LENGTH, signRequest } from "../protocol/request-object.ts";
import { signInOffer } from "./sign-in-offer.ts";

export async function authorize(ctx: RequestContext): Promise<Response> {
  const params = ctx.url.searchParams;
  // Someone who opens /auth by hand gets the home page, which explains what this is.
  if (params.size === 0) return redirect(HOME_PAGE, 302);
  const request = await checkAuthorizationRequest({
    params,
    ownerMe: ctx.config.me,
    discover: knowingItself(ctx.config.baseUrl, ctx.rt.discover),
    onRedirectUriVerified: (target) => ctx.replyTo(target),
  });
  const signed = await signRequest(request, ctx.config.keys.requestObject, ctx.config.issuer, ctx.rt.now());
  // Long state, client_id and client details can add up to more than the approve step reads.
  if (signed.length > MAX_REQUEST_OBJECT_LENGTH) throw new InvalidRequest("The authorization request is too large.");
  const fragment = writeSignInFragment({ request: signed, offer: await signInOffer(ctx, { session: true }) });
  return redirect(`${SIGN_IN_PAGE}#${fragment}`, 303);
}

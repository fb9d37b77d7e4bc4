// GET /auth: check the authorization request, then hand it, signed, to the static sign-in page.
import { checkAuthorizationRequest, ClientBoundError } from "../protocol/authorization-request.ts";
import { redirectToClient } from "../protocol/authorization-response.ts";
import { OAuthError, UntrustedRedirect } from "../errors.ts";
import { page, redirect } from "../http/responses.ts";
import { MAX_REQUEST_OBJECT_LENGTH, signRequest } from "../protocol/request-object.ts";
import type { Runtime } from "../platform/runtime.ts";
import { setupPage } from "../http/setup.ts";
import { HOME_PAGE, SIGN_IN_PAGE } from "../pages/paths.ts";
import { signInHints } from "./sign-in-hints.ts";

export async function handleAuthorizationRequest(req: Request, rt: Runtime): Promise<Response> {
  if (!rt.config.ok) return setupPage(rt.config.problems);
  const { config } = rt.config;
  const params = new URL(req.url).searchParams;
  // Someone who opens /auth by hand gets the home page, which explains what this is.
  if (params.size === 0) return redirect(HOME_PAGE, 302);

  try {
    const { request } = await checkAuthorizationRequest({ params, ownerMe: config.me, discover: rt.discover });
    const signed = await signRequest(request, config.keys.requestObject, config.issuer, rt.now());
    // Long state, client_id and client details can add up to more than the approve step reads.
    if (signed.length > MAX_REQUEST_OBJECT_LENGTH) {
      const location = redirectToClient(
        request.redirectUri,
        { error: "invalid_request", error_description: "The authorization request is too large.", state: request.state },
        config.issuer,
      );
      return redirect(location, 302);
    }
    // The fragment never reaches a server log or a Referer header.
    return redirect(`${SIGN_IN_PAGE}#request=${signed}${await signInHints(rt, config, req)}`, 303);
  } catch (error) {
    if (error instanceof UntrustedRedirect) {
      return page({ title: error.title, paragraphs: [error.description, "For your safety you were not sent back to the app."] }, 400);
    }
    if (error instanceof ClientBoundError && error.cause instanceof OAuthError) {
      const state = params.getAll("state").length === 1 ? params.get("state")! : undefined;
      const location = redirectToClient(
        params.get("redirect_uri")!,
        { error: error.cause.error, error_description: error.cause.description, state },
        config.issuer,
      );
      return redirect(location, 302);
    }
    throw error;
  }
}

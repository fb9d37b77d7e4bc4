// POST /auth/approve: the sign-in page's form. Checks that the request is this server's own
// and unaltered, refuses cross-site posts, checks the password under the throttle, then
// issues the code and sends the person back to the client.
import { redirectToClient } from "../authorization-response.ts";
import { issueCode } from "../codes.ts";
import type { Config } from "../config.ts";
import { OAuthError } from "../errors.ts";
import { isSameOriginPost, methodNotAllowed, page, readForm, redirect } from "../http.ts";
import { verifyPassword } from "../password.ts";
import { verifyRequest, type AuthorizationRequest } from "../request-object.ts";
import type { Runtime } from "../runtime.ts";
import { grantedScopes } from "../scopes.ts";
import { checkThrottle, recordFailure, recordSuccess } from "../throttle.ts";
import { SIGN_IN_PAGE } from "../paths.ts";
import { setupPage } from "./setup.ts";

export interface RequestInfo {
  /** The client's IP address, as Netlify reports it. */
  ip: string;
}

function backToSignIn(token: string, error: string): Response {
  return redirect(`${SIGN_IN_PAGE}#request=${token}&error=${encodeURIComponent(error)}`, 303);
}

async function approve(rt: Runtime, config: Config, request: AuthorizationRequest, form: URLSearchParams, token: string, info: RequestInfo): Promise<Response> {
  const now = rt.now();
  const verdict = await checkThrottle(rt.store, info.ip, now);
  if (!verdict.allowed) {
    const minutes = Math.ceil(verdict.retryAfterSeconds / 60);
    return page(
      {
        title: "Too many attempts",
        paragraphs: [`Too many wrong passwords. For your safety, signing in is paused: try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`],
        link: { href: `${SIGN_IN_PAGE}#request=${token}`, text: "Back to the sign-in page" },
      },
      429,
      { "Retry-After": String(verdict.retryAfterSeconds) },
    );
  }

  if (!(await verifyPassword(form.get("password") ?? "", config.password))) {
    await recordFailure(rt.store, info.ip, now, verdict.records);
    return backToSignIn(token, "password");
  }
  await recordSuccess(rt.store, info.ip);

  const scopes = grantedScopes(request.scopes, form.getAll("scope"));
  const code = await issueCode(
    rt.store,
    { clientId: request.clientId, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes, me: config.me },
    now,
  );
  return redirect(redirectToClient(request.redirectUri, { code, state: request.state }, config.issuer), 302);
}

export async function handleApprove(req: Request, rt: Runtime, info: RequestInfo): Promise<Response> {
  if (req.method !== "POST") return methodNotAllowed(["POST"]);
  if (!rt.config.ok) return setupPage(rt.config.problems);
  const { config } = rt.config;

  if (!isSameOriginPost(req, config.baseUrl)) {
    return page({ title: "Request refused", paragraphs: ["This form can only be sent from this site's own sign-in page."] }, 403);
  }

  let form: URLSearchParams;
  try {
    form = await readForm(req);
  } catch (error) {
    if (error instanceof OAuthError) return page({ title: "Request refused", paragraphs: [error.description] }, error.status);
    throw error;
  }

  const token = form.get("request") ?? "";
  const request = await verifyRequest(token, config.keys.requestObject, config.issuer, rt.now());
  if (!request) {
    return page(
      {
        title: "This sign-in request has expired",
        paragraphs: ["The request is no longer valid: it is more than 15 minutes old, or it was changed. Go back to the app and sign in again."],
      },
      400,
    );
  }

  const decision = form.get("decision");
  if (decision === "deny") {
    const location = redirectToClient(
      request.redirectUri,
      { error: "access_denied", error_description: "The owner denied the request.", state: request.state },
      config.issuer,
    );
    return redirect(location, 302);
  }
  if (decision !== "approve") return backToSignIn(token, "decision");
  return approve(rt, config, request, form, token, info);
}

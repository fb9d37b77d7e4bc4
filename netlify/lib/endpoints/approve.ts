// POST /auth/approve: the sign-in page's form. Checks that the request is this server's own
// and unaltered, checks who is approving (a live session on this device, the password under
// the throttle, or a passkey), then issues the code and sends the person back to the client;
// with "Keep me signed in", it also starts a session. (The frame refuses cross-site posts.)
import { AccessDenied, ExpiredSignIn } from "../errors.ts";
import { endpoint, type RequestContext } from "../http/endpoint.ts";
import { redirect } from "../http/responses.ts";
import { currentSession, hasSessionCookie, rememberRequested, startSession } from "../owner/sessions.ts";
import { credentialFrom, recordAttempt, signInOwner, throttled, type AttemptContext } from "../owner/sign-in.ts";
import { SIGN_IN_PAGE } from "../pages/paths.ts";
import { writeSignInFragment, type SignInProblem } from "../pages/sign-in-fragment.ts";
import { redirectToClient } from "../protocol/authorization-response.ts";
import { issueCode } from "../protocol/codes.ts";
import { verifyRequest, type AuthorizationRequest } from "../protocol/request-object.ts";
import { grantedScopes } from "../protocol/scopes.ts";
import { signInOffer } from "./sign-in-offer.ts";

/** Back to the page with the same request, the problem, and what to offer now (the session
 * that was there may have ended). */
async function backToSignIn(ctx: RequestContext, token: string, problem: SignInProblem): Promise<Response> {
  const offer = await signInOffer(ctx, { session: false });
  return redirect(`${SIGN_IN_PAGE}#${writeSignInFragment({ request: token, offer, problem })}`, 303);
}

type Approver = "session" | "password" | "passkey";

/** Who is approving: a live session on this device, else the password or a passkey. The
 * answer is the way they proved it, or where to send them back to. */
async function whoApproves(ctx: RequestContext, form: URLSearchParams, token: string, attempt: AttemptContext): Promise<Approver | Response> {
  // A session's approval is recorded in the history beside the code's write, not before it.
  if (await currentSession(ctx.rt.store, ctx.req, ctx.config, ctx.rt.now())) return "session";
  const outcome = await signInOwner(ctx.rt, ctx.config, credentialFrom(form), attempt);
  if (outcome.ok) return outcome.method;
  if (outcome.reason === "throttled") {
    throw throttled(outcome.retryAfterSeconds).withLink({ href: `${SIGN_IN_PAGE}#request=${token}`, text: "Back to the sign-in page" });
  }
  // A session that ended while the page was open: ask for the password, without counting a failure.
  const ended = outcome.reason === "empty" && hasSessionCookie(ctx.req, ctx.config);
  return backToSignIn(ctx, token, ended ? "session" : outcome.reason);
}

async function issue(ctx: RequestContext, request: AuthorizationRequest, form: URLSearchParams, approver: Approver, attempt: AttemptContext): Promise<Response> {
  const { config, rt } = ctx;
  const now = rt.now();
  const scopes = grantedScopes(request.scopes, form.getAll("scope"));
  const code = { clientId: request.clientId, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes, me: config.me, client: request.client };
  const [issued] = await Promise.all([issueCode(rt.store, code, now), approver === "session" ? recordAttempt(rt, attempt, "session") : undefined]);
  const response = redirect(redirectToClient(request.redirectUri, { code: issued, state: request.state }, config.issuer), 302);
  if (approver !== "session" && rememberRequested(form)) {
    const session = { method: approver, persistent: true, ip: ctx.requester.ip, userAgent: ctx.requester.userAgent };
    response.headers.append("Set-Cookie", (await startSession(rt.store, config, session, now)).setCookie);
  }
  return response;
}

async function approve(ctx: RequestContext): Promise<Response> {
  const form = await ctx.form();
  const token = form.get("request") ?? "";
  const request = await verifyRequest(token, ctx.config.keys.requestObject, ctx.config.issuer, ctx.rt.now());
  if (!request) throw new ExpiredSignIn();
  ctx.replyTo({ redirectUri: request.redirectUri, state: request.state });

  const decision = form.get("decision");
  if (decision === "deny") throw new AccessDenied("The owner denied the request.");
  if (decision !== "approve") return backToSignIn(ctx, token, "decision");
  const attempt: AttemptContext = { ip: ctx.requester.ip, where: "authorization", clientId: request.clientId };
  const approver = await whoApproves(ctx, form, token, attempt);
  return approver instanceof Response ? approver : issue(ctx, request, form, approver, attempt);
}

export const approveEndpoint = endpoint({
  POST: { answers: "page", sameOriginOnly: "This form can only be sent from this site's own sign-in page.", run: approve },
});

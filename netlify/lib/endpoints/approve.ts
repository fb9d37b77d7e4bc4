// POST /auth/approve: the sign-in page's form, as one ordered list of named steps (APPROVE_STEPS).
// A live session on this device approves on its own only what the owner approved before for the
// app with the password or a passkey (and never where this server shares the owner's site's
// origin); anything else needs the password or a passkey, and is then remembered for the app.
// The same function answers POST /auth/approve/check (request-check.ts).
import { eventSubscribers } from "../owner/event-subscribers.ts";
import type { Fields } from "../core/fields.ts";
import { AccessDenied, SignInAlreadyAnswered, UnusableSignInRequest } from "../errors.ts";
import { actionsEndpoint, route, type RequestContext } from "../http/endpoint.ts";
import { redirect, withCookies } from "../http/responses.ts";
import { rememberApproval } from "../owner/app-approvals.ts";
import { hasSessionCookie, rememberRequested, startSession } from "../owner/sessions.ts";
import { credentialFrom, recordAttempt, signInOwner, throttled, type AttemptContext } from "../owner/sign-in.ts";
import { APPROVE_PATH, SIGN_IN_PAGE } from "../pages/paths.ts";
import { writeSignInFragment, type SignInProblem } from "../pages/sign-in-fragment.ts";
import { redirectToClient } from "../protocol/authorization-response.ts";
import { issueRequestCode } from "../protocol/codes.ts";
import { checkRequest, requestId, signRequest, type SignedRequest } from "../protocol/request-object.ts";
import { grantedScopes, OFFLINE_ACCESS } from "../protocol/scopes.ts";
import { runSteps, type Step } from "../protocol/trust-steps.ts";
import { approvalPolicyOf } from "../owner/approval-policy.ts";
import { errorsMayRedirect } from "./error-redirects.ts";
import { requestCheck } from "./request-check.ts";

/** Back to the page with the same request, the problem, and what to offer now (signed into
 * the request again, which keeps its first expiry). */
async function backToSignIn(ctx: RequestContext, signed: SignedRequest, problem: SignInProblem): Promise<Response> {
  const offer = await approvalPolicyOf(ctx).offer(signed.request);
  const { keys, issuer } = ctx.config;
  const token = await signRequest(signed.request, keys.requestObject, issuer, ctx.rt.now(), {
    offer,
    expiresAt: signed.expiresAt,
    rid: signed.rid,
  });
  return redirect(`${SIGN_IN_PAGE}#${writeSignInFragment({ request: token, problem })}`, 303);
}

/** The sign-in page's form: the request, Approve or Deny, the scopes ticked, who approves, "Keep me signed in". */
const APPROVE_FIELDS = [
  "request",
  "decision",
  "scope",
  "password",
  "passkey_ticket",
  "passkey_response",
  "remember",
] as const;
type ApproveField = (typeof APPROVE_FIELDS)[number];

/** The form, and what the steps learn of it in order: the signed request it sends back, who approves. */
interface Approving {
  ctx: RequestContext<ApproveField>;
  form: Fields<ApproveField>;
  token: string;
  signed?: SignedRequest;
  scopes?: string[];
  attempt?: AttemptContext;
  approval?: Approval;
}

/** The way the owner proved it is them, and the cookies that answer (the known device). */
interface Approval {
  approver: "session" | "password" | "passkey";
  setCookies: string[];
}

/** Who is approving: a live session on this device where the approval policy lets it approve
 * on its own (the signed request's prompt included), else the password or a passkey. The
 * answer is the way they proved it, or where to send them back to. */
async function whoApproves(
  { ctx, form, token }: Approving,
  signed: SignedRequest,
  scopes: string[],
  attempt: AttemptContext,
): Promise<Approval | Response> {
  const policy = approvalPolicyOf(ctx);
  const session = await policy.session();
  // A session's approval is recorded in the history once the code is issued (after the answer).
  if (await policy.sessionApproves(signed.request, scopes)) return { approver: "session", setCookies: [] };
  const outcome = await signInOwner(ctx.rt, ctx.config, credentialFrom(form), {
    ...attempt,
    ...(session ? { sessionId: session.id } : {}),
  });
  if (outcome.ok) return { approver: outcome.method, setCookies: outcome.setCookies };
  if (outcome.reason === "throttled") {
    throw throttled(outcome.retryAfterSeconds, outcome.overall, outcome.method, outcome.busy).withLink({
      href: `${SIGN_IN_PAGE}#request=${token}`,
      text: "Back to the sign-in page",
    });
  }
  // Nothing given, which counts as no failure: a signed-in owner is asked to confirm this app;
  // a session that ended while the page was open, for the password.
  const ended = !session && hasSessionCookie(ctx.req, ctx.config);
  const problem = outcome.reason !== "empty" ? outcome.reason : session ? "confirm" : ended ? "session" : "empty";
  return backToSignIn(ctx, signed, problem);
}

async function issue(
  ctx: RequestContext,
  signed: SignedRequest,
  scopes: string[],
  form: Fields<"remember">,
  { approver, setCookies }: Approval,
  attempt: AttemptContext,
): Promise<Response> {
  const { config, rt } = ctx;
  const { request } = signed;
  const now = rt.now();
  // offline_access asked for and unticked: no refresh token (asked for by no IndieAuth client,
  // which all expect one: docs/endpoints.md).
  const offline =
    !request.scopes.includes(OFFLINE_ACCESS) || scopes.includes(OFFLINE_ACCESS) ? {} : { refresh: false as const };
  const code = {
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scopes,
    me: config.me,
    ...(request.resource ? { resource: request.resource } : {}),
    ...offline,
    client: request.unshownLogoUri ? { ...request.client, logoUri: request.unshownLogoUri } : request.client,
    ...(request.authentication ? { authentication: request.authentication } : {}),
    ...(request.documentUnread ? { documentUnread: true as const } : {}),
  };
  // One code per signed request: a double-clicked Approve gets the first answer again.
  const issued = await issueRequestCode(
    rt.store,
    config.keys.code,
    { requestId: requestId(signed), requestExpiresAt: signed.expiresAt },
    code,
    now,
  );
  if (!issued) throw new SignInAlreadyAnswered();
  if (!issued.repeat) {
    const approved = {
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      ...(request.resource ? { resource: request.resource } : {}),
      scopes,
    };
    // The password or a passkey approved this much: a session may approve it again.
    if (approver === "session") await recordAttempt(rt, attempt, "session");
    else if ((await rememberApproval(rt.store, { ...approved, method: approver }, now)).first)
      await ctx.emit({ type: "app-approved", clientId: request.clientId });
  }
  // Also on a repeat: the same code sent back again.
  await ctx.emit({ type: "approved", clientId: request.clientId, challenge: request.codeChallenge, code: issued.code });
  const response = redirect(
    redirectToClient(request.redirectUri, { code: issued.code, state: request.state }, config.issuer),
    302,
  );
  // Also on a repeat: the browser shows the last answer, and the first one's cookie may be lost with it.
  if (approver !== "session" && rememberRequested(form)) {
    const session = { method: approver, persistent: true, ip: ctx.requester.ip, userAgent: ctx.requester.userAgent };
    withCookies(response, (await startSession(rt.store, config, session, now)).setCookies);
  }
  // The known device's cookies, after the session's (the browser keeps them all).
  return withCookies(response, setCookies);
}

async function deny(ctx: RequestContext, { request }: SignedRequest): Promise<never> {
  await ctx.emit({ type: "denied", clientId: request.clientId, challenge: request.codeChallenge });
  throw new AccessDenied("The owner denied the request.");
}

/** Said on a page; a request this server signed, now expired, links back to its app. */
function unusable(problem: UnusableSignInRequest["problem"], clientId: string | undefined): UnusableSignInRequest {
  const refusal = new UnusableSignInRequest(problem);
  return clientId ? refusal.withLink({ href: clientId, text: `Back to ${new URL(clientId).host}` }) : refusal;
}

/** POST /auth/approve, in order. Before any of them, the frame refuses a cross-site post and a
 * body it does not accept: shown, never redirected (there is no redirect URI yet). */
export const APPROVE_STEPS: readonly Step<Approving>[] = [
  {
    name: "signed request",
    known: "unverified",
    async run(s) {
      const checked = await checkRequest(s.token, s.ctx.config.keys.requestObject, s.ctx.config.issuer, s.ctx.rt.now());
      if (!checked.ok) throw unusable(checked.problem, checked.clientId);
      s.signed = checked.signed;
    },
  },
  {
    name: "deny",
    known: "verified",
    run: ({ ctx, form, signed }) => (form.get("decision") === "deny" ? deny(ctx, signed!) : undefined),
  },
  {
    name: "decision",
    known: "verified",
    run: ({ ctx, form, signed }) =>
      form.get("decision") !== "approve" ? backToSignIn(ctx, signed!, "decision") : undefined,
  },
  {
    name: "who approves",
    known: "verified",
    async run(s) {
      const { ctx, form, signed } = s;
      const { request } = signed!;
      s.attempt = {
        ip: ctx.requester.ip,
        where: "authorization",
        clientId: request.clientId,
        req: ctx.req,
        userAgent: ctx.requester.userAgent,
        emit: ctx.emit,
      };
      s.scopes = grantedScopes(request.scopes, form.getAll("scope"));
      const approval = await whoApproves(s, signed!, s.scopes, s.attempt);
      if (approval instanceof Response) return approval;
      s.approval = approval;
    },
  },
  {
    name: "code issued",
    known: "verified",
    run: ({ ctx, form, signed, scopes, approval, attempt }) => issue(ctx, signed!, scopes!, form, approval!, attempt!),
  },
];

/** The line: errors (a Deny too) go back to the app, automatically only where GET /auth would
 * send them. The app's approval that decides it and this device's session are read at once. */
async function redirectUriVerified({ ctx, signed }: Approving): Promise<void> {
  const { request } = signed!;
  const [trusted] = await Promise.all([
    errorsMayRedirect(ctx, request.clientId, request.redirectUri),
    approvalPolicyOf(ctx).session(),
  ]);
  ctx.replyTo({ redirectUri: request.redirectUri, state: request.state, trusted });
}

async function approve(ctx: RequestContext<ApproveField>): Promise<Response> {
  const form = await ctx.form();
  const answer = await runSteps(APPROVE_STEPS, { ctx, form, token: form.get("request") ?? "" }, redirectUriVerified);
  if (!answer) throw new TypeError("POST /auth/approve ended without an answer");
  return answer;
}

export const approveEndpoint = actionsEndpoint({
  events: eventSubscribers,
  base: APPROVE_PATH,
  unknownAction: "There is no such step of the sign-in.",
  actions: {
    "": {
      POST: route({
        caller: "same-origin",
        crossSite: "This form can only be sent from this site's own sign-in page.",
        answers: "page",
        body: { form: APPROVE_FIELDS, repeatable: ["scope"] },
        redirects: "client",
        run: approve,
      }),
    },
    "/check": { POST: requestCheck },
  },
});

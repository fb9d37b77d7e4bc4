// POST /auth/approve: the sign-in page's form. Checks that the request is this server's own
// and unaltered, refuses cross-site posts, checks who is approving (a live session on this
// device, the password under the throttle, or a passkey), then issues the code and sends the
// person back to the client; with "Keep me signed in", it also starts a session.
import { redirectToClient } from "../protocol/authorization-response.ts";
import { issueCode, type ClientDisplay } from "../protocol/codes.ts";
import type { Config } from "../platform/config.ts";
import { OAuthError } from "../errors.ts";
import { isSameOriginPost, methodNotAllowed, page, readForm, redirect } from "../http/responses.ts";
import { verifyRequest, type AuthorizationRequest } from "../protocol/request-object.ts";
import type { Runtime } from "../platform/runtime.ts";
import { grantedScopes } from "../protocol/scopes.ts";
import { credentialFrom, recordAttempt, signInOwner, type AttemptContext, type SignInResult } from "../owner/sign-in.ts";
import { currentSession, hasSessionCookie, sessionSettings, startSession } from "../owner/sessions.ts";
import { SIGN_IN_PAGE } from "../pages/paths.ts";
import { setupPage } from "../http/setup.ts";
import { signInHints } from "./sign-in-hints.ts";

export interface RequestInfo {
  /** The client's IP address, as Netlify reports it. */
  ip: string;
  /** Names the device in the owner's console, when a session starts. */
  userAgent?: string;
}

/** Back to the page with the same request, an error, and what to offer now (the session
 * that was there may have ended). */
async function backToSignIn(rt: Runtime, config: Config, token: string, error: string): Promise<Response> {
  return redirect(`${SIGN_IN_PAGE}#request=${token}${await signInHints(rt, config, null)}&error=${encodeURIComponent(error)}`, 303);
}

function throttledPage(token: string, retryAfterSeconds: number): Response {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return page(
    {
      title: "Too many attempts",
      paragraphs: [`Too many wrong passwords. For your safety, signing in is paused: try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`],
      link: { href: `${SIGN_IN_PAGE}#request=${token}`, text: "Back to the sign-in page" },
    },
    429,
    { "Retry-After": String(retryAfterSeconds) },
  );
}

/** Who is approving: a live session on this device, else the password or a passkey. */
async function authenticate(
  rt: Runtime,
  config: Config,
  req: Request,
  form: URLSearchParams,
  context: AttemptContext,
): Promise<SignInResult | { ok: true; method: "session" }> {
  const settings = sessionSettings(config);
  // A session's approval is recorded in the history beside the code's write, not before it.
  if (await currentSession(rt.store, req, settings, rt.now())) return { ok: true, method: "session" };
  return signInOwner(rt, config, credentialFrom(form), context);
}

async function approve(rt: Runtime, config: Config, req: Request, request: AuthorizationRequest, form: URLSearchParams, token: string, info: RequestInfo): Promise<Response> {
  const context = { ip: info.ip, where: "authorization", clientId: request.clientId } as const;
  const outcome = await authenticate(rt, config, req, form, context);
  if (!outcome.ok) {
    if (outcome.reason === "throttled") return throttledPage(token, outcome.retryAfterSeconds);
    // A session that ended while the page was open: ask for the password, without counting a failure.
    const reason = outcome.reason === "empty" && hasSessionCookie(req, sessionSettings(config)) ? "session" : outcome.reason;
    return backToSignIn(rt, config, token, reason);
  }

  const now = rt.now();
  const scopes = grantedScopes(request.scopes, form.getAll("scope"));
  const [code] = await Promise.all([
    issueCode(
      rt.store,
      { clientId: request.clientId, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge, scopes, me: config.me, client: clientDisplayOf(request) },
      now,
    ),
    outcome.method === "session" ? recordAttempt(rt, context, "session") : undefined,
  ]);
  const response = redirect(redirectToClient(request.redirectUri, { code, state: request.state }, config.issuer), 302);
  if (outcome.method !== "session" && form.get("remember") === "on") {
    const { setCookie } = await startSession(rt.store, sessionSettings(config), { method: outcome.method, persistent: true, ip: info.ip, userAgent: info.userAgent ?? "" }, now);
    response.headers.append("Set-Cookie", setCookie);
  }
  return response;
}

function clientDisplayOf(request: AuthorizationRequest): ClientDisplay {
  const display: ClientDisplay = {};
  if (request.client.name) display.name = request.client.name;
  if (request.client.logoUri) display.logoUri = request.client.logoUri;
  return display;
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
  if (decision !== "approve") return backToSignIn(rt, config, token, "decision");
  return approve(rt, config, req, request, form, token, info);
}

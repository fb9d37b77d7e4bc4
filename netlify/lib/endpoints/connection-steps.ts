// What the sign-in endpoints tell the connection doctor (owner/connection-log.ts): each wraps an
// endpoint's handler, so that its call site stays one line, and reads the outcome from what the
// handler answered or threw. Everything here runs after the answer (logConnectionSteps hands it
// to waitUntil): it never delays an answer, and a failure here never changes one.
import { AnsweredError } from "../answered-error.ts";
import type { Handler, RequestContext } from "../http/endpoint.ts";
import { attemptLinks, logConnectionSteps, type StepEvent } from "../owner/connection-log.ts";
import { SIGN_IN_PAGE } from "../pages/paths.ts";
import { readSignInFragment } from "../pages/sign-in-fragment.ts";
import { grantIdOf } from "../protocol/grant-tokens.ts";
import { verifyRequest } from "../protocol/request-object.ts";
import { parseClientId } from "../protocol/urls.ts";

type Outcome = { response: Response } | { error: unknown };
type Steps = (ctx: RequestContext, outcome: Outcome, at: number) => Promise<StepEvent[]>;

/** Runs the handler, then (after the answer) logs the steps its outcome shows. */
function logged(run: Handler, steps: Steps): Handler {
  return async (ctx) => {
    const at = ctx.rt.now();
    const target = { store: ctx.rt.store, waitUntil: ctx.requester.waitUntil };
    try {
      const response = await run(ctx);
      logConnectionSteps(target, () => steps(ctx, { response: response.clone() }, at));
      return response;
    } catch (error) {
      logConnectionSteps(target, () => steps(ctx, { error }, at));
      throw error;
    }
  };
}

/** The OAuth error and its words, for an error the frame answers as one. */
function refusal(error: unknown): Pick<StepEvent, "error" | "detail"> | null {
  return error instanceof AnsweredError ? { error: error.error, detail: error.description } : null;
}

/** A client_id worth a log entry: one a sign-in could come from. */
function loggableClient(raw: string | null): string | null {
  if (!raw) return null;
  const parsed = parseClientId(raw);
  return parsed.ok ? parsed.url.href : null;
}

async function signedRequestOf(ctx: RequestContext, token: string) {
  return token ? verifyRequest(token, ctx.config.keys.requestObject, ctx.config.issuer, ctx.rt.now()) : null;
}

/** GET /auth: the request checked (and the client's document read), the consent page shown;
 * or the refusal, for a client_id that could be one. */
const authorizeSteps: Steps = async (ctx, outcome, at) => {
  if ("error" in outcome) {
    const clientId = loggableClient(ctx.url.searchParams.get("client_id"));
    const why = refusal(outcome.error);
    const challenge = ctx.url.searchParams.get("code_challenge");
    if (!clientId || !why) return [];
    const step = /metadata document|client document/i.test(why.detail ?? "") ? "document" : "request";
    return [{ clientId, step, ok: false, at, ...why, links: challenge ? [attemptLinks.challenge(clientId, challenge)] : [] }];
  }
  const location = outcome.response.headers.get("location") ?? "";
  if (!location.startsWith(SIGN_IN_PAGE)) return [];
  const signed = await signedRequestOf(ctx, readSignInFragment(new URL(location, ctx.url).hash).request);
  if (!signed) return [];
  const { clientId, codeChallenge, client } = signed.request;
  const links = [attemptLinks.challenge(clientId, codeChallenge)];
  return [
    { clientId, step: "document", ok: true, at, ...(client.name ? { detail: `it calls itself ${client.name}` } : {}), links },
    { clientId, step: "consent", ok: true, at, links },
  ];
};

/** POST /auth/approve: approved (the code sent back) or denied. */
const approveSteps: Steps = async (ctx, outcome, at) => {
  const form = await ctx.form();
  const signed = await signedRequestOf(ctx, form.get("request") ?? "");
  if (!signed) return [];
  const { clientId, codeChallenge } = signed.request;
  const links = [attemptLinks.challenge(clientId, codeChallenge)];
  if ("error" in outcome) {
    return refusal(outcome.error)?.error === "access_denied" && form.get("decision") === "deny" ? [{ clientId, step: "denied", ok: false, at, error: "access_denied", links }] : [];
  }
  const location = outcome.response.headers.get("location");
  const code = location && outcome.response.status === 302 ? new URL(location).searchParams.get("code") : null;
  if (!code) return [];
  return [{ clientId, step: "approved", ok: true, at, links: [...links, attemptLinks.code(code)], approvedClient: true }];
};

/** The access token of a token response (JSON, or form-encoded when the client asked). */
async function accessTokenOf(response: Response): Promise<string | null> {
  const text = await response.text();
  if (response.headers.get("content-type")?.includes("json")) {
    const body = JSON.parse(text) as { access_token?: unknown };
    return typeof body.access_token === "string" ? body.access_token : null;
  }
  return new URLSearchParams(text).get("access_token");
}

/** POST /token: a code redeemed or refused (with the exact OAuth error), a refresh. */
const tokenSteps: Steps = async (ctx, outcome, at) => {
  const form = await ctx.form();
  const grantType = form.get("grant_type");
  const clientId = loggableClient(form.get("client_id"));
  if (!clientId || (grantType !== "authorization_code" && grantType !== "refresh_token")) return [];
  const step = grantType === "authorization_code" ? "code" : "refresh";
  const code = form.get("code");
  const refreshGrant = grantIdOf(form.get("refresh_token") ?? "", "refresh");
  const links = step === "code" ? (code ? [attemptLinks.code(code)] : []) : refreshGrant ? [attemptLinks.grant(refreshGrant)] : [];
  if ("error" in outcome) {
    const why = refusal(outcome.error);
    return why ? [{ clientId, step, ok: false, at, ...why, links }] : [];
  }
  if (!outcome.response.ok) return [];
  const grantId = grantIdOf((await accessTokenOf(outcome.response)) ?? "", "access");
  return [{ clientId, step, ok: true, at, links: grantId ? [...links, attemptLinks.grant(grantId)] : links, approvedClient: true }];
};

export const withAuthorizeLog = (run: Handler): Handler => logged(run, authorizeSteps);
export const withApproveLog = (run: Handler): Handler => logged(run, approveSteps);
export const withTokenLog = (run: Handler): Handler => logged(run, tokenSteps);

// GET /auth, the approve step and POST /auth, as the connection doctor logs them (connection-steps.ts).
import type { RequestContext } from "../http/endpoint.ts";
import type { Handler } from "../http/endpoint.ts";
import { attemptLinks } from "../owner/connection-log.ts";
import { SIGN_IN_PAGE } from "../pages/paths.ts";
import { readSignInFragment } from "../pages/sign-in-fragment.ts";
import { verifyRequest } from "../protocol/request-object.ts";
import { logged, loggableClient, refusal, type Steps } from "./connection-steps.ts";

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
  const { clientId, codeChallenge, client, documentUnread } = signed.request;
  const links = [attemptLinks.challenge(clientId, codeChallenge)];
  // For the owner's console only: a document not read now is read when the code is redeemed.
  const document = documentUnread ? { ok: false, detail: "it could not be read just now; it is read when the code is redeemed" } : { ok: true, ...(client.name ? { detail: `it calls itself ${client.name}` } : {}) };
  return [
    { clientId, step: "document", at, ...document, links },
    { clientId, step: "consent", ok: true, at, links },
  ];
};

/** POST /auth/approve: approved (the code sent back) or denied. */
const approveSteps: Steps<"request" | "decision"> = async (ctx, outcome, at) => {
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

/** POST /auth: a code redeemed for the profile URL, or refused (with the exact OAuth error). */
const profileSteps: Steps<"client_id" | "code"> = async (ctx, outcome, at) => {
  const form = await ctx.form();
  const clientId = loggableClient(form.get("client_id"));
  const code = form.get("code");
  if (!clientId) return [];
  const links = code ? [attemptLinks.code(code)] : [];
  if ("error" in outcome) {
    const why = refusal(outcome.error);
    return why ? [{ clientId, step: "profile", ok: false, at, ...why, links }] : [];
  }
  return outcome.response.ok ? [{ clientId, step: "profile", ok: true, at, links, approvedClient: true }] : [];
};

export const withAuthorizeLog = (run: Handler): Handler => logged(run, authorizeSteps);
export const withProfileLog = <P extends string>(run: Handler<P | "client_id" | "code">): Handler<P | "client_id" | "code"> => logged(run, profileSteps);
export const withApproveLog = <P extends string>(run: Handler<P | "request" | "decision">): Handler<P | "request" | "decision"> => logged(run, approveSteps);

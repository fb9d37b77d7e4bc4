// POST /token, as the connection doctor logs it (connection-steps.ts). Apart from the sign-in's
// steps: the token function must not reach the sign-in's modules.
import type { Handler } from "../http/endpoint.ts";
import { attemptLinks } from "../owner/connection-log.ts";
import { grantIdOf } from "../protocol/grant-tokens.ts";
import { logged, loggableClient, refusal, type Steps } from "./connection-steps.ts";

/** The access token of a token response (JSON, or form-encoded when the client asked). */
async function accessTokenOf(response: Response): Promise<string | null> {
  const text = await response.text();
  if (response.headers.get("content-type")?.includes("json")) {
    const body = JSON.parse(text) as { access_token?: unknown };
    return typeof body.access_token === "string" ? body.access_token : null;
  }
  return new URLSearchParams(text).get("access_token");
}

type TokenLogField = "grant_type" | "client_id" | "code" | "refresh_token";

/** POST /token: a code redeemed or refused (with the exact OAuth error), a refresh. */
const tokenSteps: Steps<TokenLogField> = async (ctx, outcome, at) => {
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

export const withTokenLog = <P extends string>(run: Handler<P | TokenLogField>): Handler<P | TokenLogField> => logged(run, tokenSteps);

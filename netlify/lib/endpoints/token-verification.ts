// POST /introspect and the legacy GET /token: who may ask (the Bearer token itself, or the
// INTROSPECTION_TOKEN credential asking about `token`), and about which token (docs/endpoints.md).
// A token in the URL ends up in logs (RFC 6750 2.3), so it is refused unless it repeats the Bearer
// token (Indiekit). A token bound to a resource (RFC 8707) is inactive to its own holder: a Micropub
// endpoint, which does not know `aud`, would take it; only the credential gets `aud`.
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import type { Fields } from "../core/fields.ts";
import type { Config } from "../platform/config.ts";
import { InvalidRequest, InvalidToken, MissingBearerToken } from "../errors.ts";
import { endpoint, route, type RequestContext } from "../http/endpoint.ts";
import { bearerToken } from "../http/request.ts";
import { json } from "../http/responses.ts";
import { constantTimeEqual } from "../crypto/secrets.ts";
import { introspectionBody, isAudienceBound, liveGrantOfAccessToken } from "../protocol/verification.ts";

/** Refuses a token in the query string unless it only repeats the Bearer token. */
function refuseTokenInUrl(req: Request, bearer: string | null): void {
  const inUrl = new URL(req.url).searchParams.getAll("token");
  if (inUrl.some((token) => bearer === null || !constantTimeEqual(token, bearer))) {
    throw new InvalidRequest(
      "Send the token in the Authorization header or the request body, never in the URL (URLs are logged).",
    );
  }
}

interface Question {
  token: string;
  byResourceServer: boolean;
}

/** The token to check, once the caller is known to be allowed to ask. */
function tokenToCheck(req: Request, config: Config, form: Fields<"token"> | null): Question {
  const bearer = bearerToken(req);
  refuseTokenInUrl(req, bearer === "malformed" ? null : bearer);
  if (bearer === null) throw new MissingBearerToken("Send the token in an Authorization: Bearer header.");
  if (bearer === "malformed") throw new InvalidToken("The Authorization header is not a Bearer token.");
  const asked = form?.get("token") ?? null;
  if (config.introspectionToken !== undefined && constantTimeEqual(bearer, config.introspectionToken)) {
    if (!asked) throw new InvalidRequest("token is required.");
    return { token: asked, byResourceServer: true };
  }
  if (asked !== null && asked !== "" && !constantTimeEqual(asked, bearer)) {
    throw new InvalidToken("The Bearer credential may only check itself, unless it is the introspection credential.");
  }
  return { token: bearer, byResourceServer: false };
}

/** The introspection answer for the token the request asks about (`form`: the POST body). */
export async function verifyToken(ctx: RequestContext, form: Fields<"token"> | null): Promise<Response> {
  const { token, byResourceServer } = tokenToCheck(ctx.req, ctx.config, form);
  const grant = await liveGrantOfAccessToken(ctx.rt.store, token, ctx.rt.now());
  const answered = grant !== null && (byResourceServer || !isAudienceBound(grant)) ? grant : null;
  return json(introspectionBody(answered));
}

export const introspectionEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  // RFC 7662 2.1: form-encoded; RFC 6749 3.1: no parameter twice.
  POST: route({
    caller: "anyone",
    answers: "json",
    body: { oauthForm: ["token"] },
    redirects: "none",
    run: async (ctx) => verifyToken(ctx, await ctx.form()),
  }),
});

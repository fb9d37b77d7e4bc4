// POST /introspect and the legacy GET /token: who may ask, and about which token.
// The caller is authorised by a Bearer header that carries the very token being checked (what
// IndieAuth clients and most Micropub endpoints send), or by the resource-server credential
// INTROSPECTION_TOKEN, in which case the token comes from the `token` field or parameter.
import type { Config } from "../platform/config.ts";
import { InvalidRequest, InvalidToken, MissingBearerToken } from "../errors.ts";
import { endpoint, type RequestContext } from "../http/endpoint.ts";
import { bearerToken } from "../http/request.ts";
import { json } from "../http/responses.ts";
import { constantTimeEqual } from "../crypto/secrets.ts";
import { introspectionBody, verifyAccessToken } from "../protocol/verification.ts";

/** The token to check, once the caller is known to be allowed to ask. */
function tokenToCheck(req: Request, config: Config, form: URLSearchParams | null): string {
  const bearer = bearerToken(req);
  if (bearer === null) throw new MissingBearerToken("Send the token in an Authorization: Bearer header.");
  if (bearer === "malformed") throw new InvalidToken("The Authorization header is not a Bearer token.");
  const asked = form?.get("token") ?? new URL(req.url).searchParams.get("token");
  if (config.introspectionToken !== undefined && constantTimeEqual(bearer, config.introspectionToken)) {
    if (!asked) throw new InvalidRequest("token is required.");
    return asked;
  }
  if (asked !== null && asked !== "" && !constantTimeEqual(asked, bearer)) {
    throw new InvalidToken("The Bearer credential may only check itself, unless it is the introspection credential.");
  }
  return bearer;
}

/** The introspection answer for the token the request asks about (`form`: the POST body). */
export async function verifyToken(ctx: RequestContext, form: URLSearchParams | null): Promise<Response> {
  const token = tokenToCheck(ctx.req, ctx.config, form);
  return json(introspectionBody(await verifyAccessToken(ctx.rt.store, token, ctx.rt.now())));
}

export const introspectionEndpoint = endpoint({
  cors: true,
  POST: { answers: "json", run: async (ctx) => verifyToken(ctx, await ctx.form()) },
});

// POST /introspect and the legacy GET /token: who may ask, and about which token.
// The caller is authorised by a Bearer header that carries the very token being checked (what
// IndieAuth clients and most Micropub endpoints send), or by the resource-server credential
// INTROSPECTION_TOKEN, in which case the token comes from the `token` field or parameter.
import type { Config } from "../platform/config.ts";
import { InvalidRequest, InvalidToken, MissingBearerToken } from "../errors.ts";
import { answeringOAuthErrors, bearerToken, json, readForm } from "../http/responses.ts";
import type { Runtime } from "../platform/runtime.ts";
import { constantTimeEqual } from "../crypto/secrets.ts";
import { introspectionBody, verifyAccessToken } from "../protocol/verification.ts";
import { setupJson } from "../http/setup.ts";

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

export async function handleTokenVerification(req: Request, rt: Runtime, options: { readBody: boolean }): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  const { config } = rt.config;
  return answeringOAuthErrors(async () => {
    const form = options.readBody ? await readForm(req, undefined, { json: true }) : null;
    const token = tokenToCheck(req, config, form);
    return json(introspectionBody(await verifyAccessToken(rt.store, token, rt.now())));
  });
}

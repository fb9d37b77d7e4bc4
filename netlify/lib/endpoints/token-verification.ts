// POST /introspect and the legacy GET /token: who may ask, and about which token.
// The caller is authorised by a Bearer header that carries the very token being checked (what
// IndieAuth clients and most Micropub endpoints send), or by the resource-server credential
// INTROSPECTION_TOKEN, in which case the token comes from the `token` field or parameter.
import type { Config } from "../config.ts";
import { InvalidRequest, OAuthError } from "../errors.ts";
import { bearerToken, json, oauthErrorResponse, readForm } from "../http.ts";
import type { Runtime } from "../runtime.ts";
import { constantTimeEqual } from "../secrets.ts";
import { introspectionBody, verifyAccessToken } from "../verification.ts";
import { setupJson } from "./setup.ts";

function unauthorized(description: string): Response {
  return json({ error: "invalid_token", error_description: description }, 401, {
    "WWW-Authenticate": `Bearer error="invalid_token", error_description="${description}"`,
  });
}

function noCredential(): Response {
  return json({ error: "invalid_request", error_description: "Send the token in an Authorization: Bearer header." }, 401, {
    "WWW-Authenticate": 'Bearer realm="indieauth"',
  });
}

/** The token to check, once the caller is known to be allowed to ask; or the refusal. */
function tokenToCheck(req: Request, config: Config, form: URLSearchParams | null): string | Response {
  const bearer = bearerToken(req);
  if (bearer === null) return noCredential();
  if (bearer === "malformed") return unauthorized("The Authorization header is not a Bearer token.");
  const asked = form?.get("token") ?? new URL(req.url).searchParams.get("token");
  if (config.introspectionToken !== undefined && constantTimeEqual(bearer, config.introspectionToken)) {
    if (!asked) throw new InvalidRequest("token is required.");
    return asked;
  }
  if (asked !== null && asked !== "" && !constantTimeEqual(asked, bearer)) {
    return unauthorized("The Bearer credential may only check itself, unless it is the introspection credential.");
  }
  return bearer;
}

export async function handleTokenVerification(req: Request, rt: Runtime, options: { readBody: boolean }): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  try {
    const form = options.readBody ? await readForm(req, undefined, { json: true }) : null;
    const token = tokenToCheck(req, rt.config.config, form);
    if (token instanceof Response) return token;
    return json(introspectionBody(await verifyAccessToken(rt.store, token, rt.now())));
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    throw error;
  }
}

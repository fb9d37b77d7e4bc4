// GET /userinfo: the owner's profile for an access token with the `profile` scope
// (spec 9; `sub` is the owner's `me`, so that standard OAuth clients accept the answer).
import { bearerToken, json } from "../http.ts";
import { profileFor } from "../profile.ts";
import type { Runtime } from "../runtime.ts";
import { verifyAccessToken } from "../verification.ts";
import { setupJson } from "./setup.ts";

export async function handleUserinfo(req: Request, rt: Runtime): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  const { config } = rt.config;
  const token = bearerToken(req);
  if (token === null) {
    // RFC 6750 3.1: no credential at all gets the challenge without an error code.
    return json({ error: "invalid_request", error_description: "An access token is required." }, 401, { "WWW-Authenticate": 'Bearer realm="indieauth"' });
  }
  const grant = token === "malformed" ? null : await verifyAccessToken(rt.store, token, rt.now());
  if (!grant) {
    const description = "The access token is invalid, expired or revoked.";
    return json({ error: "invalid_token", error_description: description }, 401, {
      "WWW-Authenticate": `Bearer realm="indieauth", error="invalid_token", error_description="${description}"`,
    });
  }
  const profile = profileFor(grant.accessScopes, config.profile);
  if (!profile) {
    const description = "The access token does not carry the profile scope.";
    return json({ error: "insufficient_scope", error_description: description }, 403, {
      "WWW-Authenticate": `Bearer realm="indieauth", error="insufficient_scope", scope="profile", error_description="${description}"`,
    });
  }
  return json({ sub: grant.me, ...profile });
}

// GET /userinfo: the owner's profile for an access token with the `profile` scope
// (spec 9; `sub` is the owner's `me`, so that standard OAuth clients accept the answer).
import { InsufficientScope, InvalidToken, MissingBearerToken } from "../errors.ts";
import { answeringOAuthErrors, bearerToken, json } from "../http/responses.ts";
import { profileFor } from "../protocol/profile.ts";
import type { Runtime } from "../platform/runtime.ts";
import { verifyAccessToken } from "../protocol/verification.ts";
import { setupJson } from "../http/setup.ts";

export async function handleUserinfo(req: Request, rt: Runtime): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  const { config } = rt.config;
  return answeringOAuthErrors(async () => {
    const token = bearerToken(req);
    if (token === null) throw new MissingBearerToken("An access token is required.");
    const grant = token === "malformed" ? null : await verifyAccessToken(rt.store, token, rt.now());
    if (!grant) throw new InvalidToken("The access token is invalid, expired or revoked.");
    const profile = profileFor(grant.accessScopes, config.profile);
    if (!profile) throw new InsufficientScope("The access token does not carry the profile scope.", "profile");
    return json({ sub: grant.me, ...profile });
  });
}

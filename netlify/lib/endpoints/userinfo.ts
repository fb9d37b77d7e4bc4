// GET /userinfo: the owner's profile for an access token with the `profile` scope
// (spec 9; `sub` is the owner's `me`, so that standard OAuth clients accept the answer).
// A token bound to a resource (RFC 8707) is good there only: here, only when that resource is
// this server itself (its issuer, or this endpoint).
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import type { Config } from "../platform/config.ts";
import { InsufficientScope, InvalidToken, MissingBearerToken } from "../errors.ts";
import { endpoint, route, type RequestContext } from "../http/endpoint.ts";
import { bearerToken } from "../http/request.ts";
import { json } from "../http/responses.ts";
import { profileFor } from "../protocol/profile.ts";
import { liveGrantOfAccessToken } from "../protocol/verification.ts";
import { canonicalUrl } from "../core/urls.ts";

function isThisServer(resource: string, config: Config): boolean {
  const named = canonicalUrl(resource);
  return named === canonicalUrl(config.issuer) || named === canonicalUrl(`${config.baseUrl}/userinfo`);
}

async function userinfo(ctx: RequestContext): Promise<Response> {
  const token = bearerToken(ctx.req);
  if (token === null) throw new MissingBearerToken("An access token is required.");
  const grant = token === "malformed" ? null : await liveGrantOfAccessToken(ctx.rt.store, token, ctx.rt.now());
  if (!grant) throw new InvalidToken("The access token is invalid, expired or revoked.");
  if (grant.resource !== undefined && !isThisServer(grant.resource, ctx.config))
    throw new InvalidToken("The access token was not issued for this server.");
  const profile = profileFor(grant.accessScopes, ctx.config.profile);
  if (!profile) throw new InsufficientScope("The access token does not carry the profile scope.", "profile");
  return json({ sub: grant.me, ...profile });
}

export const userinfoEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  GET: route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: userinfo }),
});

// /token: POST redeems a code (or a refresh token) for an access token, or revokes one with
// the legacy action=revoke; GET is the legacy token verification.
import { connectionLogSubscriber } from "../owner/connection-log.ts";
import { InvalidGrant, InvalidRequest, InvalidScope, UnsupportedGrantType } from "../errors.ts";
import { endpoint, route, type RequestContext } from "../http/endpoint.ts";
import type { Fields } from "../core/fields.ts";
import type { Config } from "../platform/config.ts";
import { createGrant, rotateRefreshToken, type GrantRecord, type IssuedTokens } from "../protocol/grants.ts";
import { wantsFormEncoding } from "../http/error-response.ts";
import { formEncoded, json } from "../http/responses.ts";
import { withClientCredentials } from "../protocol/client-authentication.ts";
import { authenticateClient, type AssertionContext } from "../protocol/client-assertion.ts";
import { assertionContext, discoverNow } from "./assertion-context.ts";
import { declaredAtRedemption } from "../protocol/unread-document.ts";
import type { KeyAuthentication } from "../core/client-shape.ts";
import { profileFor } from "../protocol/profile.ts";
import { redeemCode, redemptionInput, type CodeRecord } from "../protocol/codes.ts";
import { checkResourceWithin, outsideGrant, requestedResource } from "../protocol/resource.ts";
import { accessScopes, parseScope } from "../protocol/scopes.ts";
import { canonicalUrl } from "../core/urls.ts";
import { grantIdOf } from "../protocol/grant-tokens.ts";
import type { Subject } from "../platform/events.ts";
import { revokeToken, REVOCATION_FIELDS } from "./revocation.ts";
import { verifyToken } from "./token-verification.ts";

/** What POST /token reads: a code's redemption or a refresh (RFC 6749 4.1.3, 6); with action=revoke, a revocation's. */
const TOKEN_FIELDS = [
  "grant_type",
  "code",
  "redirect_uri",
  "code_verifier",
  "refresh_token",
  "scope",
  "resource",
  "action",
  ...REVOCATION_FIELDS,
] as const;
type TokenField = (typeof TOKEN_FIELDS)[number];

function tokenResponse(req: Request, config: Config, issued: IssuedTokens, now: number): Response {
  const { grant } = issued;
  const body: Record<string, unknown> = {
    access_token: issued.accessToken,
    token_type: "Bearer",
    scope: grant.accessScopes.join(" "),
    me: grant.me,
    expires_in: Math.max(0, Math.floor((grant.access.expiresAt - now) / 1000)),
  };
  // A grant made without one (offline_access unticked) has a refresh token born expired.
  if (grant.refresh.expiresAt > now) body.refresh_token = issued.refreshToken;
  const profile = profileFor(grant.accessScopes, config.profile);
  if (profile) body.profile = profile;
  // JSON, unless the client explicitly asks for form encoding and not for JSON.
  return wantsFormEncoding(req) ? formEncoded(body) : json(body);
}

/** What a code must have been issued for to buy a token here, and the client authenticated as
 * its document declared (read now, for a code issued while it could not be read), checked
 * before the code is used up (a refused client can try again). `declared` receives what the
 * grant is to carry. */
function tokenWorthy(
  ctx: RequestContext<never, "discover">,
  form: Fields<TokenField>,
  assertions: AssertionContext,
  declared: { authentication?: KeyAuthentication },
): (code: CodeRecord) => Promise<void> {
  const resource = requestedResource(form);
  return async (code) => {
    // Spec 5.3.3: a code issued with no scope proves identity only; it never buys a token, and
    // it stays good for the authorization endpoint.
    if (accessScopes(code.scopes).length === 0)
      throw new InvalidGrant(
        "This authorization code was issued without a scope; redeem it at the authorization endpoint.",
      );
    checkResourceWithin(resource, code.resource);
    const authentication = await declaredAtRedemption(code, discoverNow(ctx), assertions.basicSent === true);
    await authenticateClient(form, code.clientId, authentication, assertions);
    if (authentication) declared.authentication = authentication;
  };
}

async function authorizationCodeGrant(
  ctx: RequestContext<never, "discover">,
  form: Fields<TokenField>,
  subject: Subject | null,
): Promise<Response> {
  const { req, rt, config } = ctx;
  const now = rt.now();
  const declared: { authentication?: KeyAuthentication } = {};
  const worthy = tokenWorthy(ctx, form, assertionContext(ctx, now, "/token"), declared);
  const {
    record: code,
    grantId,
    writableUntil,
  } = await redeemCode(rt.store, redemptionInput(form), now, {
    grantTypeOptional: false,
    refuseBeforeUse: worthy,
    resumable: true,
  });
  const granted = {
    id: grantId,
    clientId: code.clientId,
    me: code.me,
    scopes: code.scopes,
    ...(code.resource ? { resource: code.resource } : {}),
    ...(code.client ? { client: code.client } : {}),
    ...declared,
  };
  // No refresh token (offline_access unticked): the grant ends with its access token. Its app's
  // summary is counted after the answer (protocol/app-summary-fold.ts).
  const ttl = code.refresh === false ? { ...config, refreshTokenTtlMs: 0 } : config;
  const issued = await createGrant(rt.store, granted, now, ttl, { writableUntil, waitUntil: ctx.requester.waitUntil });
  if (subject) await ctx.emit({ type: "redeemed", subject, grantId });
  return tokenResponse(req, config, issued, now);
}

const REFRESH_ERRORS = {
  unknown: "The refresh token is not valid.",
  reused: "The refresh token was already used; every token of this authorization is now revoked.",
  expired: "The refresh token has expired.",
  client: "client_id does not match the one the refresh token was issued to.",
  conflict: "The refresh token was used by another request at the same time.",
} as const;

async function refreshTokenGrant(
  ctx: RequestContext,
  form: Fields<TokenField>,
  subject: Subject | null,
): Promise<Response> {
  const { req, rt, config } = ctx;
  const refreshToken = form.get("refresh_token");
  const clientId = form.get("client_id");
  if (!refreshToken) throw new InvalidRequest("refresh_token is required.");
  if (!clientId) throw new InvalidRequest("client_id is required.");
  let scopes: string[] | null = null;
  if (form.get("scope")) {
    const parsed = parseScope(form.get("scope"));
    if (!parsed.ok) throw new InvalidScope(parsed.reason);
    // e.g. "email" alone, which means nothing without "profile": no token without a scope.
    if (parsed.scopes.length === 0) throw new InvalidScope("The requested scope leaves no scope to grant.");
    scopes = parsed.scopes;
  }
  const resource = requestedResource(form);
  const now = rt.now();
  const assertions = assertionContext(ctx, now, "/token");
  const authenticate = (grant: GrantRecord) =>
    authenticateClient(form, grant.clientId, grant.authentication, assertions);
  const outcome = await rotateRefreshToken(
    rt.store,
    refreshToken,
    { clientId: canonicalUrl(clientId), scopes, resource, authenticate, waitUntil: ctx.requester.waitUntil },
    now,
    config,
  );
  if (outcome.ok) {
    if (subject) await ctx.emit({ type: "redeemed", subject, grantId: outcome.tokens.grant.id });
    return tokenResponse(req, config, outcome.tokens, now);
  }
  if (outcome.reason === "scope") throw new InvalidScope("The requested scope is wider than what was granted.");
  if (outcome.reason === "target") throw outsideGrant(outcome.granted);
  throw new InvalidGrant(REFRESH_ERRORS[outcome.reason]);
}

/** The sign-in a code or refresh request is part of, as the client named it (the connection
 * doctor's log follows it): the code, or the grant of the refresh token. */
function subjectOf(sent: Fields<TokenField>): Subject | null {
  const [clientId, grantType, code, grantId] = [
    sent.get("client_id"),
    sent.get("grant_type"),
    sent.get("code"),
    grantIdOf(sent.get("refresh_token") ?? "", "refresh"),
  ];
  if (!clientId || sent.get("action") === "revoke") return null;
  if (grantType === "authorization_code") return { clientId, stage: "code", ...(code ? { code } : {}) };
  return grantType === "refresh_token" ? { clientId, stage: "refresh", ...(grantId ? { grantId } : {}) } : null;
}

async function tokenRequest(ctx: RequestContext<TokenField, "discover">): Promise<Response> {
  const subject = subjectOf(await ctx.form());
  ctx.knows(subject);
  // A Basic credential is checked before anything is redeemed, so a refused one consumes nothing.
  const form = withClientCredentials(ctx.req, await ctx.form());
  if (form.get("action") === "revoke") return revokeToken(ctx, form, "/token");
  const grantType = form.get("grant_type");
  if (grantType === "authorization_code") return authorizationCodeGrant(ctx, form, subject);
  if (grantType === "refresh_token") return refreshTokenGrant(ctx, form, subject);
  if (grantType === null || grantType === "") throw new InvalidRequest("grant_type is required.");
  throw new UnsupportedGrantType(`grant_type ${grantType} is not supported; use authorization_code or refresh_token.`);
}

export const tokenEndpoint = endpoint<"discover">({
  events: connectionLogSubscriber,
  cors: true,
  // The legacy token verification: the same answer as POST /introspect.
  GET: route({
    caller: "anyone",
    answers: "json",
    body: "none",
    redirects: "none",
    run: (ctx) => verifyToken(ctx, null),
  }),
  // RFC 6749 3.1, 3.2: form-encoded, no parameter twice (RFC 8707's resource may repeat: refused
  // as invalid_target, one resource per grant).
  POST: route({
    caller: "anyone",
    answers: "json",
    body: { oauthForm: TOKEN_FIELDS, repeatable: ["resource"] },
    redirects: "none",
    run: tokenRequest,
  }),
});

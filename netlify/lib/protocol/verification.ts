// Access token verification, shared by POST /introspect, the legacy GET /token, GET /userinfo
// and the resource-server API (resource/): one round trip (the grant, and the owner's revocations
// beside it), plus at most one usage write per app every few minutes per function instance.
import { isSecretOfKind } from "../crypto/secrets.ts";
import { checkGrantToken, type DeadTokenReason, type GrantRecord } from "./grants.ts";
import { recordGrantUse } from "./app-usage.ts";
import { tokenKindOf } from "./grant-tokens.ts";
import type { KeyValueStore } from "../platform/store.ts";

/** Why a presented access token is not active (the resource API's own reasons: resource/types.ts). */
type AccessTokenRefusal = DeadTokenReason | "refresh-token" | "code";

type AccessTokenCheck = { active: true; grant: GrantRecord } | { active: false; reason: AccessTokenRefusal };

/** What the token's shape alone says against it, before any read: a refresh token or an
 * authorization code presented as an access token, or something of no known shape. */
export function shapeReason(token: string): AccessTokenRefusal | null {
  const kind = tokenKindOf(token);
  if (kind === "access") return null;
  if (kind === "refresh") return "refresh-token";
  return isSecretOfKind(token, "code") ? "code" : "malformed";
}

/** Checks an access token against its grant and records the use (rate-limited). */
export async function checkAccessToken(store: KeyValueStore, token: string, now: number): Promise<AccessTokenCheck> {
  const wrongShape = shapeReason(token);
  if (wrongShape) return { active: false, reason: wrongShape };
  const check = await checkGrantToken(store, token, "access", now);
  if (!check.live) return { active: false, reason: check.reason };
  await recordGrantUse(store, check.grant, now);
  return { active: true, grant: check.grant };
}

/** The live grant of an access token, or null; records the use (rate-limited). */
export async function liveGrantOfAccessToken(
  store: KeyValueStore,
  token: string,
  now: number,
): Promise<GrantRecord | null> {
  const check = await checkAccessToken(store, token, now);
  return check.active ? check.grant : null;
}

/** Whether the grant's tokens were issued for one resource (RFC 8707), and so are good there
 * only: never at an endpoint that cannot tell which resource it is. */
export function isAudienceBound(grant: GrantRecord): boolean {
  return grant.resource !== undefined;
}

type IntrospectionBody =
  | { active: false }
  | { active: true; me: string; client_id: string; scope: string; exp: number; iat: number; aud?: string };

/** RFC 7662 with the IndieAuth `me`: exactly `{active: false}` for anything not live. `aud`
 * is the resource the token is for (RFC 8707), when the grant names one: a resource server
 * must refuse a token whose `aud` is not its own. */
export function introspectionBody(grant: GrantRecord | null): IntrospectionBody {
  if (!grant) return { active: false };
  return {
    active: true,
    me: grant.me,
    client_id: grant.clientId,
    scope: grant.accessScopes.join(" "),
    exp: Math.floor(grant.access.expiresAt / 1000),
    iat: Math.floor(grant.access.issuedAt / 1000),
    ...(grant.resource !== undefined ? { aud: grant.resource } : {}),
  };
}

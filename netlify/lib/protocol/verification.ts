// Access token verification, shared by POST /introspect, the legacy GET /token and
// GET /userinfo: one storage read (the grant), plus at most one usage write per grant every
// few minutes per function instance.
import { grantForToken, recordGrantUse, type GrantRecord } from "./grants.ts";
import type { KeyValueStore } from "../platform/store.ts";

/** The live grant of an access token, or null; records the use (rate-limited). */
export async function verifyAccessToken(store: KeyValueStore, token: string, now: number): Promise<GrantRecord | null> {
  const grant = await grantForToken(store, token, "access", now);
  if (grant) await recordGrantUse(store, grant, now);
  return grant;
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


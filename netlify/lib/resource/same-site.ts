// Same-site mode: the blog's function reads the token's grant from the server's own Blobs store,
// with exactly the rules (and usage record) of POST /introspect: protocol/verification.ts.
import type { GrantRecord } from "../protocol/grants.ts";
import { checkAccessToken } from "../protocol/verification.ts";
import type { KeyValueStore } from "../platform/store.ts";
import type { ActiveToken, TokenVerification } from "./types.ts";

export function activeTokenOf(grant: GrantRecord): ActiveToken {
  return {
    active: true,
    me: grant.me,
    clientId: grant.clientId,
    scope: grant.accessScopes.join(" "),
    // The resource the owner approved the token for (RFC 8707), as /introspect answers it.
    ...(grant.resource !== undefined ? { aud: grant.resource } : {}),
    exp: Math.floor(grant.access.expiresAt / 1000),
  };
}

/** Checks a token with one read of its grant. */
export async function verifySameSite(store: KeyValueStore, token: string, now: number): Promise<TokenVerification> {
  const check = await checkAccessToken(store, token, now);
  return check.active ? activeTokenOf(check.grant) : { active: false, reason: check.reason };
}

// Same-site mode: the blog's function reads the token's grant from the server's own Blobs store,
// with exactly the rules (and usage record) of POST /introspect: protocol/verification.ts.
import type { GrantRecord } from "../protocol/grants.ts";
import { checkAccessToken } from "../protocol/verification.ts";
import type { KeyValueStore } from "../platform/store.ts";
import type { ActiveToken, TokenVerification } from "./types.ts";

/** A grant as a server with resource indicators (RFC 8707) writes it: the resources the app
 * named, if any. Read as optional, so that grants written before or without them still verify. */
type GrantWithResource = GrantRecord & { resource?: string | readonly string[] };

export function activeTokenOf(grant: GrantWithResource): ActiveToken {
  const token: ActiveToken = {
    active: true,
    me: grant.me,
    clientId: grant.clientId,
    scope: grant.accessScopes.join(" "),
    exp: Math.floor(grant.access.expiresAt / 1000),
  };
  const { resource } = grant;
  if (typeof resource === "string") token.aud = resource;
  else if (Array.isArray(resource) && resource.length > 0) token.aud = [...resource];
  return token;
}

/** Checks a token with one read of its grant. */
export async function verifySameSite(store: KeyValueStore, token: string, now: number): Promise<TokenVerification> {
  const check = await checkAccessToken(store, token, now);
  return check.active ? activeTokenOf(check.grant) : { active: false, reason: check.reason };
}

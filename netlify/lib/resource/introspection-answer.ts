// An RFC 7662 answer read as the API's TokenVerification. Both modes read it: another site's
// from this server's /introspect, the same site's from the very body /introspect would send
// (protocol/verification.ts), so the two setups cannot answer differently.
import type { ActiveToken, TokenVerification } from "./types.ts";

const isString = (value: unknown): value is string => typeof value === "string";

/** The RFC 7662 answer as a TokenVerification; null when it is not a well-formed answer. */
export function tokenFromIntrospection(body: unknown): TokenVerification | null {
  if (typeof body !== "object" || body === null) return null;
  const answer = body as Record<string, unknown>;
  if (answer.active === false) return { active: false, reason: "inactive" };
  if (answer.active !== true) return null;
  const { me, client_id: clientId, scope, exp, aud } = answer;
  if (!isString(me) || !isString(clientId) || !isString(scope) || typeof exp !== "number" || !Number.isFinite(exp))
    return null;
  const token: ActiveToken = { active: true, me, clientId, scope, exp };
  if (isString(aud)) token.aud = aud;
  else if (Array.isArray(aud) && aud.length > 0 && aud.every(isString)) token.aud = aud;
  else if (aud !== undefined) return null;
  return token;
}

// POST /revoke (RFC 7009), and the legacy POST /token with action=revoke: the token's whole
// grant is revoked. Unknown tokens get 200 too, so that the answer reveals nothing. A client
// that authenticates with Basic credentials must present them as the token endpoint accepts.
import { InvalidRequest } from "../errors.ts";
import { grantOwningToken, revokeGrant } from "../protocol/grants.ts";
import { endpoint } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { withClientCredentials } from "../protocol/client-authentication.ts";
import type { WaitUntil } from "../platform/after-answer.ts";
import type { Runtime } from "../platform/runtime.ts";

/** token_type_hint is ignored: the token's own prefix says what it is. */
/** A refresh token rotated out revokes its grant here too: whoever holds it had the grant's token. */
export async function revokeToken(rt: Runtime, form: URLSearchParams, refreshKey: Uint8Array, waitUntil?: WaitUntil): Promise<Response> {
  const token = form.get("token");
  if (token === null || token === "") throw new InvalidRequest("token is required.");
  const owning = await grantOwningToken(rt.store, token, refreshKey);
  // The grant as just read, with its version; the app's summary follows after the answer.
  if (owning) await revokeGrant(rt.store, owning.id, rt.now(), { read: owning.read, waitUntil });
  return json({});
}

export const revocationEndpoint = endpoint({
  cors: true,
  POST: { answers: "json", run: async (ctx) => revokeToken(ctx.rt, withClientCredentials(ctx.req, await ctx.form()), ctx.config.keys.refreshToken, ctx.requester.waitUntil) },
});

// POST /revoke (RFC 7009), and the legacy POST /token with action=revoke: the token's whole
// grant is revoked. Unknown tokens get 200 too, so that the answer reveals nothing. A client that
// names itself (client_id, Basic credentials as the token endpoint accepts them) may revoke only
// its own tokens, and a private_key_jwt client only with its assertion (protocol/revoking-client.ts).
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import type { Fields } from "../core/fields.ts";
import { InvalidRequest } from "../errors.ts";
import { grantOwningToken, revokeGrant } from "../protocol/grants.ts";
import { endpoint, route, type RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { withClientCredentials } from "../protocol/client-authentication.ts";
import { checkRevokingClient } from "../protocol/revoking-client.ts";
import { assertionContext } from "./assertion-context.ts";

/** What a revocation reads (RFC 7009 2.1; token_type_hint is not read) and the client's authentication. */
export const REVOCATION_FIELDS = [
  "token",
  "client_id",
  "client_secret",
  "client_assertion_type",
  "client_assertion",
] as const;
type RevocationField = (typeof REVOCATION_FIELDS)[number];

/** token_type_hint is ignored: the token's own prefix says what it is. A refresh token rotated
 * out revokes its grant here too: whoever holds it had the grant's token. `form` has the
 * client's Basic credentials applied; `at` is the path posted to (an assertion's audience). */
export async function revokeToken(
  ctx: RequestContext,
  form: Fields<RevocationField>,
  at: "/revoke" | "/token",
): Promise<Response> {
  const { rt, config } = ctx;
  const token = form.get("token");
  if (token === null || token === "") throw new InvalidRequest("token is required.");
  const owning = await grantOwningToken(rt.store, token, config.keys.refreshToken);
  if (!owning) return json({});
  const now = rt.now();
  await checkRevokingClient(form, owning.grant, assertionContext(ctx, now, at));
  // The grant as just read, with its version; the app's summary follows after the answer.
  await revokeGrant(rt.store, owning.id, now, { read: owning.read, waitUntil: ctx.requester.waitUntil });
  return json({});
}

export const revocationEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  POST: route({
    caller: "anyone",
    answers: "json",
    body: { oauthForm: REVOCATION_FIELDS },
    redirects: "none",
    run: async (ctx) => revokeToken(ctx, withClientCredentials(ctx.req, await ctx.form()), "/revoke"),
  }),
});

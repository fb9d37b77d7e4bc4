// Who may revoke a token (RFC 7009 2.1: the server "verifies whether the token was issued to the
// client making the revocation request", and refuses the request when not). A request that names
// its client (client_id in the body, or as Basic credentials: client-authentication.ts) must name
// the token's own. A client whose metadata document declared private_key_jwt proves it with its
// assertion here too, as at every exchange (CIMD draft 8.2), and one that declared none may send
// none. A request that names no client, IndieAuth's (spec 7.1: `token` alone), is the holder of
// a public client's token revoking it, which RFC 7009 leaves to the server and IndieAuth allows.
import type { Fields } from "../core/fields.ts";
import { canonicalUrl } from "../core/urls.ts";
import { InvalidGrant } from "../errors.ts";
import { authenticateClient, type AssertionContext, type AssertionFields } from "./client-assertion.ts";
import type { GrantRecord } from "./grants.ts";

/** Throws unless the request may revoke this grant's token: InvalidGrant (400) for a token of
 * another client (RFC 6749 5.2: "issued to another client"), InvalidClient (401) for a client
 * that does not authenticate as its document declared. Nothing is written before it returns
 * but the assertion's jti, used once. */
export async function checkRevokingClient(
  form: AssertionFields & Fields<"client_id">,
  grant: GrantRecord,
  assertions: AssertionContext,
): Promise<void> {
  const named = form.get("client_id");
  if (named !== null && named !== "" && canonicalUrl(named) !== grant.clientId) {
    throw new InvalidGrant(
      "This token was issued to another client: a client may revoke only its own tokens (RFC 7009 2.1).",
    );
  }
  await authenticateClient(form, grant.clientId, grant.authentication, assertions);
}

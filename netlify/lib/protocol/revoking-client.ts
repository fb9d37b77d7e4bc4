// Who may revoke a token (RFC 7009 2.1): a request that names a client (client_id, or Basic
// credentials) must name the token's own, and authenticate as its document declared; one that
// names none (IndieAuth's `token` alone, spec 7.1) is the holder of a public client's token
// revoking it. See docs/security.md ("Revocation revokes only").
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

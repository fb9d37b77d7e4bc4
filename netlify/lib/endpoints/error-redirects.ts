// Where an error may be sent back to the client automatically (a 302 from the owner's domain)
// rather than shown on a page with a link the person may follow (RFC 9700 4.11.2). Only where
// no stranger can point it: a redirect URI the owner approved for that app before with the
// password or a passkey (a loopback one on any port, RFC 8252 7.3), or this server's own
// self-test page. Never merely because the client publishes it: anyone can name their own site
// as the client and publish one `<link rel="redirect_uri">` line, and would then have the
// owner's domain redirect to it. Nor merely because it is a loopback URI: a stranger chooses
// the client_id, host, port, path and query of one as freely (`http://127.0.0.1:8080/admin/
// reset?confirm=1`, a local service of the owner's), and the owner's domain would send the
// browser there. The one rule for every error path of GET /auth and of POST /auth/approve
// (Deny and prompt=none's login_required / consent_required included).
import { isOwnSelfTest } from "../clients/own-client.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { approvalPolicyOf } from "../owner/approval-policy.ts";

export async function errorsMayRedirect(ctx: RequestContext, clientId: string, redirectUri: string): Promise<boolean> {
  if (isOwnSelfTest(ctx.config.baseUrl, clientId, redirectUri)) return true;
  return approvalPolicyOf(ctx).approvedRedirect(clientId, redirectUri);
}

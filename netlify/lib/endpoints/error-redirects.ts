// Where an error may be sent back to the client automatically (a 302 from the owner's domain)
// rather than shown on a page with a link (RFC 9700 4.11.2): only where no stranger can point it,
// a redirect URI the owner approved for that app with the password or a passkey, or this server's
// self-test page; never because the client publishes it or because it is a loopback URI (a
// stranger chooses those freely). One rule for every error of GET /auth and POST /auth/approve
// (docs/security.md, "No open redirect through error answers").
import { isOwnSelfTest } from "../clients/own-client.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { approvalPolicyOf } from "../owner/approval-policy.ts";

export async function errorsMayRedirect(ctx: RequestContext, clientId: string, redirectUri: string): Promise<boolean> {
  if (isOwnSelfTest(ctx.config.baseUrl, clientId, redirectUri)) return true;
  return approvalPolicyOf(ctx).approvedRedirect(clientId, redirectUri);
}

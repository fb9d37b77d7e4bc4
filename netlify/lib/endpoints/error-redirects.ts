// Where an error may be sent back to the client automatically (a 302 from the owner's domain)
// rather than shown on a page with a link the person may follow (RFC 9700 4.11.2). Only where
// no stranger can point it: a redirect URI the owner approved for that app before with the
// password or a passkey, a loopback one (this very device, RFC 8252 7.3), or this server's own
// self-test page. Never merely because the client publishes it: anyone can name their own site
// as the client and publish one `<link rel="redirect_uri">` line, and would then have the
// owner's domain redirect to it. The one rule for every error path of GET /auth and of
// POST /auth/approve (Deny included).
import { isOwnSelfTest } from "../clients/own-client.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { isLoopbackRedirect } from "../core/urls.ts";
import { policyOf } from "./approval-policy.ts";

export async function errorsMayRedirect(ctx: RequestContext, clientId: string, redirectUri: string): Promise<boolean> {
  if (isOwnSelfTest(ctx.config.baseUrl, clientId, redirectUri)) return true;
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return false;
  }
  if (isLoopbackRedirect(url)) return true;
  return policyOf(ctx).approvedRedirect(clientId, redirectUri);
}

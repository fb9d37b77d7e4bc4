// The functions that read the owner's session remove a session cookie of an earlier version
// wherever one still comes with a request (owner/retired-session.ts), beside their own answer.
import type { Capability, Endpoint } from "../http/endpoint.ts";
import { withCookies } from "../http/responses.ts";
import { retireSessionCookie } from "../owner/retired-session.ts";

export function removingRetiredSessionCookie<C extends Capability>(endpoint: Endpoint<C>): Endpoint<C> {
  return async (req, rt, requester) => {
    const response = await endpoint(req, rt, requester);
    if (!rt.config.ok) return response;
    try {
      const clear = await retireSessionCookie(rt.store, req, rt.config.config, rt.now());
      return clear ? withCookies(response, [clear]) : response;
    } catch (error) {
      // Storage failed to end the old session: the answer stands, and the next request tries again.
      console.warn(`indieauth: an earlier version's session cookie was not retired: ${error instanceof Error ? error.message : String(error)}`);
      return response;
    }
  };
}

// Where a client assertion (RFC 7523, protocol/client-assertion.ts) is checked: the endpoint the
// client posts to, this server's token endpoint and its issuer are the audiences it may name;
// and how a code's redemption reads its client's document when it could not be read before.
import type { RequestContext } from "../http/endpoint.ts";
import type { AssertionContext } from "../protocol/client-assertion.ts";
import type { DiscoverNow } from "../protocol/unread-document.ts";

export function assertionContext(
  ctx: RequestContext,
  now: number,
  endpointPath: "/token" | "/auth" | "/revoke",
): AssertionContext {
  const { rt, config } = ctx;
  const basicSent = /^Basic(\s|$)/i.test(ctx.req.headers.get("authorization") ?? "");
  const audiences = [...new Set([`${config.baseUrl}${endpointPath}`, `${config.baseUrl}/token`, config.issuer])];
  return { store: rt.store, now, audiences, fetcher: rt.fetchKeys, basicSent };
}

/** Reads a client's document at a code's redemption (one issued while it could not be read),
 * whatever discovery remembered of it. */
export function discoverNow(ctx: RequestContext<never, "discover">): DiscoverNow {
  return (clientId) => ctx.rt.discover(clientId, ctx.rt.store, { atRedemption: true });
}

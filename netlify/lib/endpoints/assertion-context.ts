// Where a client assertion (RFC 7523, protocol/client-assertion.ts) is checked: the endpoint the
// client posts to, this server's token endpoint and its issuer are the audiences it may name.
import type { RequestContext } from "../http/endpoint.ts";
import type { AssertionContext } from "../protocol/client-assertion.ts";

export function assertionContext(ctx: RequestContext, now: number, endpointPath: "/token" | "/auth"): AssertionContext {
  const { rt, config } = ctx;
  const basicSent = /^Basic(\s|$)/i.test(ctx.req.headers.get("authorization") ?? "");
  const audiences = [...new Set([`${config.baseUrl}${endpointPath}`, `${config.baseUrl}/token`, config.issuer])];
  return { store: rt.store, now, audiences, fetcher: rt.fetchKeys, basicSent };
}

// The approval policy of the request being answered (owner/approval-policy.ts), made once per
// request: GET /auth asks it several times (the error-redirect trust rule, the logo rule, the
// offer, prompt=none), and each of its reads is a Blobs round trip made only once.
import type { RequestContext } from "../http/endpoint.ts";
import { approvalPolicy, type ApprovalPolicy } from "../owner/approval-policy.ts";

const policies = new WeakMap<RequestContext, ApprovalPolicy>();

export function policyOf(ctx: RequestContext): ApprovalPolicy {
  let policy = policies.get(ctx);
  if (!policy) policies.set(ctx, (policy = approvalPolicy({ store: ctx.rt.store, config: ctx.config, req: ctx.req, now: ctx.rt.now() })));
  return policy;
}

// POST /auth: redeem a code for the profile URL (and profile information), never a token
// (spec 5.3.2). A client whose metadata document declares private_key_jwt authenticates here as
// at the token endpoint (CIMD: the declared method is required), before the code is used up.
import type { RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { authenticateClient } from "../protocol/client-assertion.ts";
import { withClientCredentials } from "../protocol/client-authentication.ts";
import { redeemCode, redemptionInput } from "../protocol/codes.ts";
import { profileFor } from "../protocol/profile.ts";
import { assertionContext } from "./assertion-context.ts";

export async function redeemForProfile(ctx: RequestContext): Promise<Response> {
  const form = withClientCredentials(ctx.req, await ctx.form());
  const now = ctx.rt.now();
  const assertions = assertionContext(ctx, now, "/auth");
  const { record } = await redeemCode(ctx.rt.store, redemptionInput(form), now, {
    grantTypeOptional: true,
    refuseBeforeUse: (code) => authenticateClient(form, code.clientId, code.authentication, assertions),
  });
  const profile = profileFor(record.scopes, ctx.config.profile);
  return json(profile ? { me: record.me, profile } : { me: record.me });
}

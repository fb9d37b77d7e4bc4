// POST /auth: redeem a code for the profile URL (and profile information), never a token
// (spec 5.3.2).
import type { RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { withClientCredentials } from "../protocol/client-authentication.ts";
import { redeemCode, redemptionInput } from "../protocol/codes.ts";
import { profileFor } from "../protocol/profile.ts";

export async function redeemForProfile(ctx: RequestContext): Promise<Response> {
  const { record } = await redeemCode(ctx.rt.store, redemptionInput(withClientCredentials(ctx.req, await ctx.form())), ctx.rt.now(), { grantTypeOptional: true });
  const profile = profileFor(record.scopes, ctx.config.profile);
  return json(profile ? { me: record.me, profile } : { me: record.me });
}

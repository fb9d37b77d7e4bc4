// POST /auth: redeem a code for the profile URL (and profile information), never a token
// (spec 5.3.2).
import { answeringOAuthErrors, json, readForm } from "../http/responses.ts";
import { profileFor } from "../protocol/profile.ts";
import { redeemCode, redemptionInput } from "../protocol/codes.ts";
import type { Runtime } from "../platform/runtime.ts";
import { setupJson } from "../http/setup.ts";

export async function handleProfileRedemption(req: Request, rt: Runtime): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  const { config } = rt.config;
  return answeringOAuthErrors(async () => {
    const form = await readForm(req, undefined, { json: true });
    const { record } = await redeemCode(rt.store, redemptionInput(form), rt.now(), { grantTypeOptional: true });
    const profile = profileFor(record.scopes, config.profile);
    return json(profile ? { me: record.me, profile } : { me: record.me });
  });
}

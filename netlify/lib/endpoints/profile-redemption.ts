// POST /auth: redeem a code for the profile URL (and profile information), never a token
// (spec 5.3.2). A client whose metadata document declares private_key_jwt authenticates here as
// at the token endpoint (CIMD: the declared method is required), before the code is used up; for
// a code issued while its document could not be read, as the document declares now.
import type { RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { authenticateClient } from "../protocol/client-assertion.ts";
import { withClientCredentials } from "../protocol/client-authentication.ts";
import { redeemCode, redemptionInput } from "../protocol/codes.ts";
import { profileFor } from "../protocol/profile.ts";
import { assertionContext, discoverNow } from "./assertion-context.ts";
import { declaredAtRedemption } from "../protocol/unread-document.ts";

/** What POST /auth reads (`resource` is declared only to let it repeat, as at the token endpoint). */
export const REDEMPTION_FIELDS = [
  "grant_type",
  "code",
  "client_id",
  "redirect_uri",
  "code_verifier",
  "client_secret",
  "client_assertion_type",
  "client_assertion",
  "resource",
] as const;

export async function redeemForProfile(
  ctx: RequestContext<(typeof REDEMPTION_FIELDS)[number], "discover">,
): Promise<Response> {
  // The sign-in this code is part of, as the client names it (the connection doctor's log).
  const [clientId, code] = [(await ctx.form()).get("client_id"), (await ctx.form()).get("code")];
  const subject = clientId ? { clientId, stage: "profile" as const, ...(code ? { code } : {}) } : null;
  ctx.knows(subject);
  const form = withClientCredentials(ctx.req, await ctx.form());
  const now = ctx.rt.now();
  const assertions = assertionContext(ctx, now, "/auth");
  const { record } = await redeemCode(ctx.rt.store, redemptionInput(form), now, {
    grantTypeOptional: true,
    refuseBeforeUse: async (code) =>
      authenticateClient(
        form,
        code.clientId,
        await declaredAtRedemption(code, discoverNow(ctx), assertions.basicSent === true),
        assertions,
      ),
  });
  if (subject) await ctx.emit({ type: "redeemed", subject });
  const profile = profileFor(record.scopes, ctx.config.profile);
  return json(profile ? { me: record.me, profile } : { me: record.me });
}

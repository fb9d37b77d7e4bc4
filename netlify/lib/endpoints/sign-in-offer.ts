// What the static sign-in page should offer: Approve alone with a live session on this device;
// else the password, a passkey, or both.
import type { RequestContext } from "../http/endpoint.ts";
import { listPasskeys, passwordLoginAllowed } from "../owner/passkeys.ts";
import { currentSession } from "../owner/sessions.ts";
import type { SignInOffer } from "../pages/sign-in-fragment.ts";

/** `session: false` skips the session check (the approve step just found none that works). */
export async function signInOffer(ctx: RequestContext, options: { session: boolean }): Promise<SignInOffer> {
  if (options.session && (await currentSession(ctx.rt.store, ctx.req, ctx.config, ctx.rt.now()))) return { session: true };
  const passkeys = await listPasskeys(ctx.rt.store);
  return { session: false, passkey: passkeys.length > 0, password: passwordLoginAllowed(ctx.config.passwordLogin, passkeys) };
}

// The owner console's APIs act only for a signed-in owner: a handler wrapped in `signedIn`
// gets the live session, and a request without one is refused with the ways to sign in.
import { LoginRequired } from "../errors.ts";
import type { Handler, RequestContext } from "../http/endpoint.ts";
import { listPasskeys, passwordLoginAllowed } from "../owner/passkey-records.ts";
import { currentSession, type SessionRecord } from "../owner/sessions.ts";
import type { LoginRequiredView } from "../pages/account-view.ts";

/** The ways the owner can sign in now: the password (unless PASSWORD_LOGIN=off and a passkey
 * exists), a passkey (once one exists). */
export async function signInMethods(ctx: RequestContext): Promise<LoginRequiredView["signIn"]> {
  const passkeys = await listPasskeys(ctx.rt.store);
  return { password: passwordLoginAllowed(ctx.config.passwordLogin, passkeys), passkey: passkeys.length > 0 };
}

export function signedIn(run: (ctx: RequestContext, session: SessionRecord) => Promise<Response>): Handler {
  return async (ctx) => {
    const session = await currentSession(ctx.rt.store, ctx.req, ctx.config, ctx.rt.now());
    if (session) return run(ctx, session);
    throw new LoginRequired(await signInMethods(ctx));
  };
}

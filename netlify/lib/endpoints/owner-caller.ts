// The owner behind a session route (http/endpoint.ts's `caller: "session"` and "reconfirmed"):
// a live session on this device, or that and the password or a passkey given again in the same
// form. Apart from the frame, so that the functions without such routes never reach sessions.
import { LoginRequired } from "../errors.ts";
import type { Fields } from "../core/fields.ts";
import type { OwnerCheck, RequestContext } from "../http/endpoint.ts";
import type { Owner } from "../http/route-checks.ts";
import { json, withCookies } from "../http/responses.ts";
import { listPasskeys, passwordLoginAllowed } from "../owner/passkey-records.ts";
import { currentSession, rememberRequested, startSession, type SessionRecord } from "../owner/sessions.ts";
import { credentialFrom, refusalFor, signInOwner, type OwnerCredential } from "../owner/sign-in.ts";

type Credential = "password" | "passkey_ticket" | "passkey_response";

/** The ways the owner can sign in now: the password (unless PASSWORD_LOGIN=off and a passkey
 * exists), a passkey (once one exists). */
export async function signInMethods(ctx: RequestContext): Promise<{ password: boolean; passkey: boolean }> {
  const passkeys = await listPasskeys(ctx.rt.store);
  return { password: passwordLoginAllowed(ctx.config.passwordLogin, passkeys), passkey: passkeys.length > 0 };
}

async function liveSession(ctx: RequestContext): Promise<SessionRecord> {
  const session = await currentSession(ctx.rt.store, ctx.req, ctx.config, ctx.rt.now());
  if (!session) throw new LoginRequired(await signInMethods(ctx));
  return session;
}

/** The password or a passkey again, for a change a session alone may not make. */
export async function confirmOwner(
  ctx: RequestContext,
  sessionId: string,
  credential: OwnerCredential,
): Promise<Owner> {
  const { requester } = ctx;
  const confirmed = await signInOwner(
    ctx.rt,
    ctx.config,
    credential,
    { ip: requester.ip, where: "account", req: ctx.req, sessionId, userAgent: requester.userAgent, emit: ctx.emit },
    "confirm",
  );
  if (!confirmed.ok) throw refusalFor(confirmed);
  return { sessionId, setCookies: confirmed.setCookies };
}

/** Signs in to the console with the password or a passkey, and starts this device's session. */
export async function consoleSignIn(ctx: RequestContext<"remember">, credential: OwnerCredential): Promise<Response> {
  const { rt, config, requester } = ctx;
  const { ip, userAgent } = requester;
  const result = await signInOwner(rt, config, credential, {
    ip,
    where: "account",
    req: ctx.req,
    userAgent,
    emit: ctx.emit,
  });
  if (!result.ok) throw refusalFor(result);
  const session = { method: credential.method, persistent: rememberRequested(await ctx.form()), ip, userAgent };
  const { setCookies } = await startSession(rt.store, config, session, rt.now());
  return withCookies(json({ ok: true }), [...setCookies, ...result.setCookies]);
}

const passwordOf = (form: Fields<Credential>): OwnerCredential => ({
  method: "password",
  password: form.get("password") ?? "",
});

export const ownerSession: OwnerCheck<"session"> = {
  checks: "session",
  find: async (ctx) => ({ sessionId: (await liveSession(ctx)).id, setCookies: [] }),
};
export const ownerReconfirmed: OwnerCheck<"reconfirmed"> = {
  checks: "reconfirmed",
  find: async (ctx) => confirmOwner(ctx, (await liveSession(ctx)).id, credentialFrom(await ctx.form())),
};
/** The password alone, where the console's form asks for nothing else. */
export const ownerPasswordAgain: OwnerCheck<"reconfirmed"> = {
  checks: "reconfirmed",
  find: async (ctx) => confirmOwner(ctx, (await liveSession(ctx)).id, passwordOf(await ctx.form())),
};

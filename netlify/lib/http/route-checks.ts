// What the frame (endpoint.ts) checks of a route's contract, apart from its body (body.ts): who
// called (a same-origin post, a live owner session, the owner confirmed again) before the
// handler runs, and where its answer sends the browser after.
import { AccessDenied, LoginRequired } from "../errors.ts";
import type { Config } from "../platform/config.ts";
import type { Runtime } from "../platform/runtime.ts";
import type { Fields } from "../core/fields.ts";
import type { ClientReply } from "../protocol/authorization-response.ts";
import { listPasskeys, passwordLoginAllowed } from "../owner/passkey-records.ts";
import { currentSession, type SessionRecord } from "../owner/sessions.ts";
import { credentialFrom, refusalFor, signInOwner } from "../owner/sign-in.ts";
import { isSameOriginPost } from "./request.ts";

/** Who may call a route. `same-origin`: a post from this site's own pages (a GET changes
 * nothing and is not checked); `session`: that, and a live owner session, handed to the handler;
 * `reconfirmed`: that, and the owner's password (or a passkey, where `with` allows) given again
 * in the same form, for a change a session alone may not make. */
export type Caller = "anyone" | "same-origin" | "session" | "reconfirmed";

/** Where a route's answers may send the browser: nowhere, this site's own pages, or those and
 * the client's redirect URI once verified (ctx.replyTo). */
export type Redirects = "none" | "own-pages" | "client";

/** The owner behind a session route; `setCookies`, the known device's cookies a confirmation
 * answers with (the frame adds them to the handler's answer). */
export interface Owner {
  session: SessionRecord;
  setCookies: readonly string[];
}

/** Who sent the request, as the platform reports it; and the platform's way to finish work
 * after the response has gone (Netlify's context.waitUntil), where it offers one. */
export interface Requester {
  ip: string;
  userAgent: string;
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

type CredentialField = "password" | "passkey_ticket" | "passkey_response";

/** The ways the owner can sign in now: the password (unless PASSWORD_LOGIN=off and a passkey
 * exists), a passkey (once one exists). */
export async function signInMethods(rt: Runtime, config: Config): Promise<{ password: boolean; passkey: boolean }> {
  const passkeys = await listPasskeys(rt.store);
  return { password: passwordLoginAllowed(config.passwordLogin, passkeys), passkey: passkeys.length > 0 };
}

/** The password or a passkey again, from the form, for a change a session alone may not make. */
export async function confirmOwner(rt: Runtime, config: Config, req: Request, who: Requester, session: SessionRecord, form: Fields<CredentialField>, passwordOnly = false): Promise<Owner> {
  const credential = passwordOnly ? { method: "password" as const, password: form.get("password") ?? "" } : credentialFrom(form);
  const confirmed = await signInOwner(rt, config, credential, { ip: who.ip, where: "account", req, sessionId: session.id, userAgent: who.userAgent, waitUntil: who.waitUntil }, "confirm");
  if (!confirmed.ok) throw refusalFor(confirmed);
  return { session, setCookies: confirmed.setCookies };
}

/** Refuses a post from another site to a route that admits this site's own pages only. */
export function checkOrigin(caller: Caller, crossSite: string | undefined, req: Request, config: Config): void {
  if (caller !== "anyone" && req.method === "POST" && !isSameOriginPost(req, config.baseUrl)) throw new AccessDenied(crossSite ?? "This request is accepted from this site's own pages only.");
}

/** The live owner session a session route needs, or the refusal with the ways to sign in. */
export async function ownerSession(rt: Runtime, config: Config, req: Request): Promise<SessionRecord> {
  const session = await currentSession(rt.store, req, config, rt.now());
  if (!session) throw new LoginRequired(await signInMethods(rt, config));
  return session;
}

const withoutQuery = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`;

/** Null when the answer sends the browser only where the route declares; else what is wrong. */
export function strayRedirect(response: Response, redirects: Redirects, config: Config, reply: ClientReply | undefined): string | null {
  const location = response.headers.get("location");
  if (location === null) return null;
  if (redirects === "none") return `a Location (${location}) on a route that redirects nowhere`;
  let target: URL;
  try {
    target = new URL(location, config.baseUrl);
  } catch {
    return `an unreadable Location (${location})`;
  }
  if (target.origin === new URL(config.baseUrl).origin && target.protocol.startsWith("http")) return null;
  if (redirects === "client" && reply && withoutQuery(target) === withoutQuery(new URL(reply.redirectUri))) return null;
  return `a Location (${location}) that is neither this site's page nor the verified redirect URI`;
}

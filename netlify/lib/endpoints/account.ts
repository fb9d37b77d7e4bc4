// The owner console's API (/indieauth/api/account): what is authorised, from where one is
// signed in, what happened, and the means to cut any of it off. Everything but signing in
// needs a live session; every POST must come from this site's own pages.
import type { AccountOverview, LoginRequired } from "../pages/account-view.ts";
import { listAuthorisedApps, revokeAllApps, revokeApp } from "../owner/authorised-apps.ts";
import type { Config } from "../platform/config.ts";
import { AccessDenied, InvalidCredentials, InvalidRequest, NotFound, TooManyAttempts } from "../errors.ts";
import { answeringOAuthErrors, isSameOriginPost, json, methodNotAllowed, readForm } from "../http/responses.ts";
import type { SignInResult } from "../owner/sign-in.ts";
import { listPasskeys, passkeyName, passkeyView, passwordLoginAllowed, removePasskey, renamePasskey } from "../owner/passkeys.ts";
import { ACCOUNT_API } from "../pages/paths.ts";
import type { Runtime } from "../platform/runtime.ts";
import { clearSessionCookie, currentSession, endAllSessions, endSession, listSessions, sessionSettings, startSession, type SessionRecord } from "../owner/sessions.ts";
import { recentSignInEvents } from "../owner/sign-in-events.ts";
import { deviceLabel } from "../owner/user-agent.ts";
import { setupJson } from "../http/setup.ts";

export interface ConsoleRequestInfo {
  ip: string;
  userAgent: string;
}

/** The 401 of every console call without a session, with what the sign-in form should offer. */
export async function loginRequired(rt: Runtime, config: Config): Promise<Response> {
  const passkeys = await listPasskeys(rt.store);
  const body: LoginRequired = {
    error: "login_required",
    error_description: "Sign in to see your account.",
    signIn: { password: passwordLoginAllowed(config.passwordLogin, passkeys), passkey: passkeys.length > 0 },
  };
  return json(body, 401);
}

/** Turns a failed sign-in into the console's answer. */
export function signInError(result: Exclude<SignInResult, { ok: true }>): never {
  switch (result.reason) {
    case "throttled":
      throw new TooManyAttempts(`Too many wrong passwords. Signing in is paused for ${Math.ceil(result.retryAfterSeconds / 60)} minutes.`, result.retryAfterSeconds);
    case "password":
      throw new InvalidCredentials("That password is not right.");
    case "passkey":
      throw new InvalidCredentials("That passkey was not accepted. Try again, or use another one.");
    case "password-off":
      throw new AccessDenied("Password sign-in is off (PASSWORD_LOGIN=off): sign in with a passkey.");
    case "empty":
      throw new InvalidRequest("Enter your password.");
  }
}

async function overview(rt: Runtime, config: Config, session: SessionRecord): Promise<AccountOverview> {
  const now = rt.now();
  const [apps, sessions, passkeys, events] = await Promise.all([
    listAuthorisedApps(rt.store, now),
    listSessions(rt.store, now),
    listPasskeys(rt.store),
    recentSignInEvents(rt.store, now),
  ]);
  return {
    me: config.me,
    passwordLogin: passwordLoginAllowed(config.passwordLogin, passkeys),
    apps,
    devices: sessions.map((s) => ({
      id: s.id,
      current: s.id === session.id,
      label: deviceLabel(s.userAgent),
      ip: s.ip,
      method: s.method,
      createdAt: s.createdAt,
      lastSeenAt: s.lastSeenAt,
      expiresAt: s.expiresAt,
      persistent: s.persistent,
    })),
    passkeys: passkeys.map(passkeyView),
    events,
  };
}

async function signIn(rt: Runtime, config: Config, form: URLSearchParams, info: ConsoleRequestInfo): Promise<Response> {
  // Loaded for sign-ins only: the console's other calls never check a password.
  const { signInOwner } = await import("../owner/sign-in.ts");
  const result = await signInOwner(rt, config, { method: "password", password: form.get("password") ?? "" }, { ip: info.ip, where: "account" });
  if (!result.ok) signInError(result);
  const persistent = form.get("remember") === "true";
  const { setCookie } = await startSession(rt.store, sessionSettings(config), { method: "password", persistent, ip: info.ip, userAgent: info.userAgent }, rt.now());
  return json({ ok: true }, 200, { "Set-Cookie": setCookie });
}

async function signOut(rt: Runtime, config: Config, form: URLSearchParams, session: SessionRecord): Promise<Response> {
  const device = form.get("device") ?? session.id;
  const clear = { "Set-Cookie": clearSessionCookie(sessionSettings(config)) };
  if (device === "all") {
    await endAllSessions(rt.store);
    return json({ ok: true }, 200, clear);
  }
  await endSession(rt.store, device);
  return json({ ok: true }, 200, device === session.id ? clear : {});
}

async function revoke(rt: Runtime, form: URLSearchParams): Promise<Response> {
  const app = form.get("app");
  if (!app) throw new InvalidRequest("Say which app to revoke (app), or all.");
  if (app === "all") return json({ ok: true, revoked: await revokeAllApps(rt.store, rt.now()) });
  if (!(await revokeApp(rt.store, app, rt.now()))) throw new NotFound("No such app holds a token.");
  return json({ ok: true, revoked: 1 });
}

async function changePasskey(rt: Runtime, form: URLSearchParams, change: "rename" | "delete"): Promise<Response> {
  const id = form.get("id") ?? "";
  if (change === "delete") {
    if (!(await removePasskey(rt.store, id))) throw new NotFound("No such passkey.");
    return json({ ok: true });
  }
  const name = passkeyName(form.get("name") ?? "");
  if (!name) throw new InvalidRequest("Give the passkey a name.");
  if (!(await renamePasskey(rt.store, id, name))) throw new NotFound("No such passkey.");
  return json({ ok: true });
}

export async function handleAccount(req: Request, rt: Runtime, info: ConsoleRequestInfo): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  const { config } = rt.config;
  const action = new URL(req.url).pathname.slice(ACCOUNT_API.length).replace(/\/$/, "");

  return answeringOAuthErrors(async () => {
    if (action === "") {
      if (req.method !== "GET" && req.method !== "HEAD") return methodNotAllowed(["GET"]);
      const session = await currentSession(rt.store, req, sessionSettings(config), rt.now());
      return session ? json(await overview(rt, config, session)) : loginRequired(rt, config);
    }
    if (req.method !== "POST") return methodNotAllowed(["POST"]);
    if (!isSameOriginPost(req, config.baseUrl)) throw new AccessDenied("The console accepts requests from its own page only.");
    const form = await readForm(req, undefined, { json: true });
    if (action === "/sign-in") return signIn(rt, config, form, info);

    const session = await currentSession(rt.store, req, sessionSettings(config), rt.now());
    if (!session) return loginRequired(rt, config);
    switch (action) {
      case "/sign-out":
        return signOut(rt, config, form, session);
      case "/revoke":
        return revoke(rt, form);
      case "/passkeys/rename":
        return changePasskey(rt, form, "rename");
      case "/passkeys/delete":
        return changePasskey(rt, form, "delete");
      default:
        throw new NotFound("There is no such console action.");
    }
  });
}

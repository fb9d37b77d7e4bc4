// The owner console's API (/indieauth/api/account): what is authorised, from where one is
// signed in, what happened, and the means to cut any of it off. Everything but signing in
// needs a live session; every POST must come from this site's own pages.
import { InvalidRequest, NotFound } from "../errors.ts";
import { actionsEndpoint, type Handler, type RequestContext, type Route } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { listAuthorisedApps, revokeAllApps, revokeApp } from "../owner/authorised-apps.ts";
import { listPasskeys, passkeyName, passkeyView, passwordLoginAllowed, removePasskey, renamePasskey } from "../owner/passkeys.ts";
import { clearSessionCookie, currentSession, endAllSessions, endSession, listSessions, rememberRequested, startSession, type SessionRecord } from "../owner/sessions.ts";
import { isHistoryCursor, signInHistory } from "../owner/sign-in-history.ts";
import { rebuildSummaries } from "../owner/summary-rebuild.ts";
import { deviceLabel } from "../owner/user-agent.ts";
import type { AccountOverview, AccountSessionView } from "../pages/account-view.ts";
import { ACCOUNT_API } from "../pages/paths.ts";
import { signedIn, signInMethods } from "./console-session.ts";

/** Legacy grants counted per console load while the summary rebuild is unfinished. */
const CONSOLE_REBUILD_BATCH = 300;

/** A console load's share of the rebuild; its failure (a slow store) never costs the console. */
async function rebuildStep({ rt }: RequestContext, now: number): Promise<void> {
  try {
    await rebuildSummaries(rt.store, now, CONSOLE_REBUILD_BATCH);
  } catch (error) {
    console.error("app summary rebuild:", error);
  }
}

async function overviewOf(ctx: RequestContext, session: SessionRecord): Promise<AccountOverview> {
  const { rt, config } = ctx;
  const now = rt.now();
  const [apps, sessions, passkeys, history] = await Promise.all([
    // Until grants stored before app summaries are counted (once, after upgrading), a batch first.
    rebuildStep(ctx, now).then(() => listAuthorisedApps(rt.store, now)),
    listSessions(rt.store, now),
    listPasskeys(rt.store),
    signInHistory(rt.store, now),
  ]);
  return {
    me: config.me,
    passwordLogin: passwordLoginAllowed(config.passwordLogin, passkeys),
    apps: apps.apps,
    ...(apps.more > 0 ? { moreApps: apps.more } : {}),
    ...(history.before ? { moreEvents: history.before } : {}),
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
    events: history.events,
  };
}

async function overview(ctx: RequestContext, session: SessionRecord): Promise<Response> {
  return json(await overviewOf(ctx, session));
}

/** The page's first question: the overview when signed in, else the ways to sign in (200 both). */
async function sessionView(ctx: RequestContext): Promise<Response> {
  const session = await currentSession(ctx.rt.store, ctx.req, ctx.config, ctx.rt.now());
  const view: AccountSessionView = session ? { signedIn: true, account: await overviewOf(ctx, session) } : { signedIn: false, signIn: await signInMethods(ctx) };
  return json(view);
}

/** Older sign-in history, a page at a time: ?before= the `moreEvents` (or `before`) last answered. */
async function history(ctx: RequestContext): Promise<Response> {
  const before = new URL(ctx.req.url).searchParams.get("before") ?? undefined;
  if (before !== undefined && !isHistoryCursor(before)) throw new InvalidRequest("before is not a place in the history.");
  return json(await signInHistory(ctx.rt.store, ctx.rt.now(), before));
}

async function signIn(ctx: RequestContext): Promise<Response> {
  const { rt, config, requester } = ctx;
  const form = await ctx.form();
  // Loaded for sign-ins only: the console's other calls never check a password.
  const { signInOwner, refusalFor } = await import("../owner/sign-in.ts");
  const result = await signInOwner(rt, config, { method: "password", password: form.get("password") ?? "" }, { ip: requester.ip, where: "account" });
  if (!result.ok) throw refusalFor(result);
  const session = { method: "password", persistent: rememberRequested(form), ip: requester.ip, userAgent: requester.userAgent } as const;
  const { setCookie } = await startSession(rt.store, config, session, rt.now());
  return json({ ok: true }, 200, { "Set-Cookie": setCookie });
}

async function signOut(ctx: RequestContext, session: SessionRecord): Promise<Response> {
  const device = (await ctx.form()).get("device") ?? session.id;
  const clear = { "Set-Cookie": await clearSessionCookie(ctx.config) };
  if (device === "all") {
    await endAllSessions(ctx.rt.store);
    return json({ ok: true }, 200, clear);
  }
  await endSession(ctx.rt.store, device);
  return json({ ok: true }, 200, device === session.id ? clear : {});
}

async function revoke(ctx: RequestContext): Promise<Response> {
  const { rt } = ctx;
  const app = (await ctx.form()).get("app");
  if (!app) throw new InvalidRequest("Say which app to revoke (app), or all.");
  if (app === "all") return json({ ok: true, revoked: await revokeAllApps(rt.store, rt.now()) });
  if (!(await revokeApp(rt.store, app, rt.now()))) throw new NotFound("No such app holds a token.");
  return json({ ok: true, revoked: 1 });
}

async function renameKey(ctx: RequestContext): Promise<Response> {
  const form = await ctx.form();
  const name = passkeyName(form.get("name") ?? "");
  if (!name) throw new InvalidRequest("Give the passkey a name.");
  if (!(await renamePasskey(ctx.rt.store, form.get("id") ?? "", name))) throw new NotFound("No such passkey.");
  return json({ ok: true });
}

/** Removing a passkey weakens sign-in (the last one gone, PASSWORD_LOGIN=off no longer holds),
 * so, like adding one, it takes the password or a passkey again: a session alone is not enough. */
async function deleteKey(ctx: RequestContext): Promise<Response> {
  const { rt, config, requester } = ctx;
  const form = await ctx.form();
  const { signInOwner, refusalFor, credentialFrom } = await import("../owner/sign-in.ts");
  const confirmed = await signInOwner(rt, config, credentialFrom(form), { ip: requester.ip, where: "account" }, "confirm");
  if (!confirmed.ok) throw refusalFor(confirmed);
  if (!(await removePasskey(rt.store, form.get("id") ?? ""))) throw new NotFound("No such passkey.");
  return json({ ok: true });
}

const action = (run: Handler): Route => ({ answers: "json", sameOriginOnly: "The console accepts requests from its own page only.", run });

export const accountApi = actionsEndpoint({
  base: ACCOUNT_API,
  unknownAction: "There is no such console action.",
  actions: {
    "": { GET: { answers: "json", run: signedIn(overview) } },
    "/session": { GET: { answers: "json", run: sessionView } },
    "/history": { GET: { answers: "json", run: signedIn(history) } },
    "/sign-in": { POST: action(signIn) },
    "/sign-out": { POST: action(signedIn(signOut)) },
    "/revoke": { POST: action(signedIn(revoke)) },
    "/passkeys/rename": { POST: action(signedIn(renameKey)) },
    "/passkeys/delete": { POST: action(signedIn(deleteKey)) },
  },
});

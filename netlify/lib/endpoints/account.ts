// The owner console's API (/indieauth/api/account): what is authorised, from where one is
// signed in, what happened, and the means to cut any of it off.
import { eventSubscribers } from "../owner/event-subscribers.ts";
import { InvalidRequest, NotFound } from "../errors.ts";
import { actionsEndpoint, route, type RequestContext } from "../http/endpoint.ts";
import type { Owner } from "../http/route-checks.ts";
import { confirmOwner, consoleSignIn, ownerReconfirmed, ownerSession, signInMethods } from "./owner-caller.ts";
import { json, withCookies } from "../http/responses.ts";
import { logoPath } from "../clients/logo-link.ts";
import { sharesOriginWithSite } from "../owner/app-approvals.ts";
import { listAuthorisedApps, revokeAllApps, revokeApp } from "../owner/authorised-apps.ts";
import {
  listPasskeys,
  passkeyName,
  passkeyView,
  passwordLoginAllowed,
  removePasskey,
  renamePasskey,
} from "../owner/passkey-records.ts";
import { clearSessionCookies, currentSession, endAllSessions, endSession, listSessions } from "../owner/sessions.ts";
import { credentialFrom } from "../owner/sign-in.ts";
import { isHistoryCursor, signInHistory } from "../owner/sign-in-history.ts";
import { deviceLabel } from "../owner/user-agent.ts";
import type { AccountOverview, AccountSessionView } from "../pages/account-view.ts";
import { ACCOUNT_API } from "../pages/paths.ts";
import { alertsStatus, sendTestAlert } from "./alerts-console.ts";
import { connections, mcpCheck } from "./connections-console.ts";

async function overviewOf(ctx: RequestContext, sessionId: string): Promise<AccountOverview> {
  const { rt, config } = ctx;
  const now = rt.now();
  const [apps, sessions, passkeys, history] = await Promise.all([
    listAuthorisedApps(rt.store, now, ctx.requester.waitUntil),
    listSessions(rt.store, now),
    listPasskeys(rt.store),
    signInHistory(rt.store, now),
  ]);
  return {
    me: config.me,
    passwordLogin: passwordLoginAllowed(config.passwordLogin, passkeys),
    confirmChanges: sharesOriginWithSite(config),
    // Logos through this server (GET /auth/logo), as on the sign-in page: the owner's browser
    // never asks an app's host for anything. Only web addresses are signed; others are dropped.
    apps: apps.apps.map(({ logoUri, ...app }) =>
      logoUri && /^https?:\/\//i.test(logoUri) ? { ...app, logoUri: logoPath(logoUri, config.keys.logo) } : app,
    ),
    ...(apps.more > 0 ? { moreApps: apps.more } : {}),
    ...(history.before ? { moreEvents: history.before } : {}),
    devices: sessions.map((s) => ({
      id: s.id,
      current: s.id === sessionId,
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

async function overview(ctx: RequestContext, { sessionId }: Owner): Promise<Response> {
  return json(await overviewOf(ctx, sessionId));
}

/** The page's first question: the overview when signed in, else the ways to sign in (200 both). */
async function sessionView(ctx: RequestContext): Promise<Response> {
  const session = await currentSession(ctx.rt.store, ctx.req, ctx.config, ctx.rt.now());
  const view: AccountSessionView = session
    ? { signedIn: true, account: await overviewOf(ctx, session.id) }
    : { signedIn: false, signIn: await signInMethods(ctx) };
  return json(view);
}

/** Older sign-in history, a page at a time: ?before= the `moreEvents` (or `before`) last answered. */
async function history(ctx: RequestContext): Promise<Response> {
  const before = new URL(ctx.req.url).searchParams.get("before") ?? undefined;
  if (before !== undefined && !isHistoryCursor(before))
    throw new InvalidRequest("before is not a place in the history.");
  return json(await signInHistory(ctx.rt.store, ctx.rt.now(), before));
}

async function signIn(ctx: RequestContext<"password" | "remember">): Promise<Response> {
  return consoleSignIn(ctx, { method: "password", password: (await ctx.form()).get("password") ?? "" });
}

/** The fields a confirmation reads (http/route-checks.ts). */
type Confirming = "password" | "passkey_ticket" | "passkey_response";
const CONFIRMING = ["password", "passkey_ticket", "passkey_response"] as const;

/** Sharing the blog's origin (the plugin on the blog's own host), every script on the blog holds
 * the owner's session: there, cutting off apps or other devices (one by one, as well as all at
 * once, which a script could repeat one by one) takes the password or a passkey again, as passkey
 * changes do everywhere. Signing this device out does not. */
async function confirmIfShared(ctx: RequestContext<Confirming>, sessionId: string): Promise<readonly string[]> {
  return sharesOriginWithSite(ctx.config)
    ? (await confirmOwner(ctx, sessionId, credentialFrom(await ctx.form()))).setCookies
    : [];
}

async function signOut(ctx: RequestContext<"device" | Confirming>, { sessionId }: Owner): Promise<Response> {
  const device = (await ctx.form()).get("device") ?? sessionId;
  const confirmed = device !== sessionId ? await confirmIfShared(ctx, sessionId) : [];
  // Every copy of this device's cookie (one per path that reads it).
  const clear = await clearSessionCookies(ctx.config);
  if (device === "all") {
    await endAllSessions(ctx.rt.store);
    return withCookies(json({ ok: true }), [...clear, ...confirmed]);
  }
  await endSession(ctx.rt.store, device);
  return withCookies(json({ ok: true }), [...(device === sessionId ? clear : []), ...confirmed]);
}

async function revoke(ctx: RequestContext<"app" | Confirming>, { sessionId }: Owner): Promise<Response> {
  const { rt } = ctx;
  const app = (await ctx.form()).get("app");
  if (!app) throw new InvalidRequest("Say which app to revoke (app), or all.");
  const confirmed = await confirmIfShared(ctx, sessionId);
  if (app === "all")
    return withCookies(json({ ok: true, revoked: await revokeAllApps(rt.store, rt.now()) }), confirmed);
  if (!(await revokeApp(rt.store, app, rt.now()))) throw new NotFound("No such app holds a token.");
  return withCookies(json({ ok: true, revoked: 1 }), confirmed);
}

async function renameKey(ctx: RequestContext<"id" | "name">): Promise<Response> {
  const form = await ctx.form();
  const name = passkeyName(form.get("name") ?? "");
  if (!name) throw new InvalidRequest("Give the passkey a name.");
  if (!(await renamePasskey(ctx.rt.store, form.get("id") ?? "", name))) throw new NotFound("No such passkey.");
  return json({ ok: true });
}

/** Removing a passkey weakens sign-in (the last one gone, PASSWORD_LOGIN=off no longer holds),
 * so, like adding one, it takes the password or a passkey again: a session alone is not enough. */
async function deleteKey(ctx: RequestContext<"id">): Promise<Response> {
  const removed = await removePasskey(ctx.rt.store, (await ctx.form()).get("id") ?? "");
  if (!removed) throw new NotFound("No such passkey.");
  await ctx.emit({ type: "passkey-removed", name: removed.name });
  return json({ ok: true });
}

const CROSS_SITE = "The console accepts requests from its own page only.";
const view = (run: (ctx: RequestContext, owner: Owner) => Promise<Response>) =>
  route({
    caller: "session",
    crossSite: CROSS_SITE,
    owner: ownerSession,
    answers: "json",
    body: "none",
    redirects: "none",
    run,
  });
/** A console action: a same-origin post with a live session, reading `form`. */
const action = <const P extends string>(
  form: readonly P[],
  run: (ctx: RequestContext<NoInfer<P>>, owner: Owner) => Promise<Response>,
) =>
  route<P>({
    caller: "session",
    crossSite: CROSS_SITE,
    owner: ownerSession,
    answers: "json",
    body: { form },
    redirects: "none",
    run,
  });

export const accountApi = actionsEndpoint({
  events: eventSubscribers,
  base: ACCOUNT_API,
  unknownAction: "There is no such console action.",
  actions: {
    "": { GET: view(overview) },
    "/session": {
      GET: route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: sessionView }),
    },
    "/history": { GET: view(history) },
    "/sign-in": {
      POST: route({
        caller: "same-origin",
        crossSite: CROSS_SITE,
        answers: "json",
        body: { form: ["password", "remember"] },
        redirects: "none",
        run: signIn,
      }),
    },
    "/sign-out": { POST: action(["device", ...CONFIRMING], signOut) },
    "/revoke": { POST: action(["app", ...CONFIRMING], revoke) },
    "/passkeys/rename": { POST: action(["id", "name"], renameKey) },
    "/passkeys/delete": {
      POST: route({
        caller: "reconfirmed",
        crossSite: CROSS_SITE,
        owner: ownerReconfirmed,
        answers: "json",
        body: { form: ["id", ...CONFIRMING] },
        redirects: "none",
        run: deleteKey,
      }),
    },
    "/alerts": { GET: view(alertsStatus) },
    "/alerts/test": { POST: action([], sendTestAlert) },
    "/connections": { GET: view(connections) },
    "/mcp-check": { POST: action(["url"], mcpCheck) },
  },
});

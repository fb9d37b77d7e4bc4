// Owner sessions ("Keep me signed in on this device", and the console): a signed JWT cookie of its
// own type naming a session record, which makes it revocable (signing out deletes it). The cookie
// goes only to the paths that read it (SESSION_COOKIE_PATHS), never to the blog's, so it is
// `__Secure-`, not `__Host-`; a cookie of its name tossed onto the parent domain buys nothing
// (docs/security.md; every copy is checked: cookie-values.ts).
import { randomBytes } from "node:crypto";
import type { Fields } from "../core/fields.ts";
import type { Config } from "../platform/config.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { createOnce } from "../platform/create-once.ts";
import { signTyped, verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";
import { importCommonJs } from "../core/commonjs.ts";
import { cookieValues } from "../core/cookie-values.ts";
import { loadOnce } from "../core/load-once.ts";
import { PAGES_PREFIX } from "../pages/paths.ts";
import { BROWSER_SESSION_MS, PERSISTENT_SESSION_MS } from "../core/policy.ts";

// Loaded with the first cookie to write (a CommonJS package: not at every cold start).
const cookies = loadOnce(() => importCommonJs(() => import("cookie")));

export const SESSION_TYPE = "indieauth-owner-session+jwt";
/** lastSeenAt is refreshed at most this often, so that a busy session costs no write per request. */
const TOUCH_INTERVAL_MS = 5 * 60 * 1000;

export interface SessionRecord {
  kind: "session";
  id: string;
  method: "password" | "passkey";
  persistent: boolean;
  ip: string;
  userAgent: string;
  createdAt: number;
  /** In the record, the sign-in's time; later visits are kept in a record of their own. */
  lastSeenAt: number;
  expiresAt: number;
}

type SessionSettings = Pick<Config, "issuer" | "development"> & { keys: Pick<Config["keys"], "session"> };

const sessionKey = RECORDS.session.key;
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

/** Local http development cannot have `Secure`, which the `__Secure-` prefix needs. */
export function sessionCookieName(development: boolean): string {
  return development ? "indieauth_session" : "__Secure-indieauth_session";
}

/** Where the session is read, one cookie each. GET /auth (what the sign-in page offers) and its
 * approve step below it (a cookie's path covers the paths under it): an app's sign-in reaches
 * GET /auth from the app's site, where a Strict cookie would not come, so Lax. The console's
 * APIs, which only this site's own pages call: Strict. */
const SESSION_COOKIE_PATHS = [
  { path: "/auth", sameSite: "lax" },
  { path: `${PAGES_PREFIX}/api`, sameSite: "strict" },
] as const;

function sessionKind(settings: SessionSettings): JwtKind {
  return {
    key: settings.keys.session,
    issuer: settings.issuer,
    typ: SESSION_TYPE,
    audience: `${settings.issuer}session`,
  };
}

/** The Set-Cookie values of one cookie value, on every path that reads it. */
async function sessionCookies(settings: SessionSettings, value: string, maxAge?: number): Promise<string[]> {
  const { serialize } = await cookies();
  const name = sessionCookieName(settings.development);
  return SESSION_COOKIE_PATHS.map(({ path, sameSite }) =>
    serialize(name, value, {
      httpOnly: true,
      secure: !settings.development,
      sameSite,
      path,
      ...(maxAge === undefined ? {} : { maxAge }),
    }),
  );
}

interface NewSession {
  method: SessionRecord["method"];
  persistent: boolean;
  ip: string;
  userAgent: string;
}

/** The record and the Set-Cookie values that carry it (one per path). */
export async function startSession(
  store: KeyValueStore,
  settings: SessionSettings,
  input: NewSession,
  now: number,
): Promise<{ session: SessionRecord; setCookies: string[] }> {
  const id = randomBytes(16).toString("base64url");
  const session: SessionRecord = {
    kind: "session",
    id,
    method: input.method,
    persistent: input.persistent,
    ip: input.ip,
    userAgent: input.userAgent.slice(0, 512),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + (input.persistent ? PERSISTENT_SESSION_MS : BROWSER_SESSION_MS),
  };
  // Under a fresh random id, a refusal is this write's own (landed, its answer lost, retried).
  const mine = (stored: SessionRecord) => stored.id === id && stored.createdAt === now;
  if (!(await createOnce(store, sessionKey(id), session, mine))) throw new Error("session id collision");
  const jwt = await signTyped({ sid: id }, sessionKind(settings), now, session.expiresAt);
  const maxAge = input.persistent ? Math.floor(PERSISTENT_SESSION_MS / 1000) : undefined;
  return { session, setCookies: await sessionCookies(settings, jwt, maxAge) };
}

/** The session id a request's cookie names, if its signature, type and expiry are right (the
 * first copy that verifies: see cookie-values.ts). */
async function sessionIdOf(req: Request, settings: SessionSettings, now: number): Promise<string | null> {
  for (const value of await cookieValues(req.headers.get("cookie"), sessionCookieName(settings.development))) {
    const payload = await verifyTyped<{ sid: unknown }>(value, sessionKind(settings), now, 2048);
    if (typeof payload?.sid === "string" && SESSION_ID.test(payload.sid)) return payload.sid;
  }
  return null;
}

/** When a session was last seen, kept beside its record: signing out deletes the session
 * record, and a request that was reading it at that moment writes only this one, so it can
 * never bring the session back (rewriting the record itself would). */
interface SessionSeenRecord {
  kind: "session-seen";
  lastSeenAt: number;
  expiresAt: number;
}

const readSeen = (store: KeyValueStore, id: string) => store.get<SessionSeenRecord>(RECORDS.sessionSeen.key(id));

function seenAt(session: SessionRecord, seen: SessionSeenRecord | null): number {
  return seen?.kind === "session-seen" ? Math.max(seen.lastSeenAt, session.lastSeenAt) : session.lastSeenAt;
}

/** The live session of this request, or null. A forged cookie costs no storage read. */
export async function currentSession(
  store: KeyValueStore,
  req: Request,
  settings: SessionSettings,
  now: number,
): Promise<SessionRecord | null> {
  const id = await sessionIdOf(req, settings, now);
  if (!id) return null;
  const [session, seen] = await Promise.all([store.get<SessionRecord>(sessionKey(id)), readSeen(store, id)]);
  if (session?.kind !== "session" || session.id !== id || session.expiresAt <= now) return null;
  const lastSeenAt = seenAt(session, seen);
  if (now - lastSeenAt < TOUCH_INTERVAL_MS) return { ...session, lastSeenAt };
  await store.set(RECORDS.sessionSeen.key(id), {
    kind: "session-seen",
    lastSeenAt: now,
    expiresAt: session.expiresAt,
  } satisfies SessionSeenRecord);
  return { ...session, lastSeenAt: now };
}

/** A session cookie at all, live or not. */
export function hasSessionCookie(req: Request, settings: SessionSettings): boolean {
  return (req.headers.get("cookie") ?? "").includes(`${sessionCookieName(settings.development)}=`);
}

export function clearSessionCookies(settings: SessionSettings): Promise<string[]> {
  return sessionCookies(settings, "", 0);
}

export async function endSession(store: KeyValueStore, id: string): Promise<void> {
  if (SESSION_ID.test(id)) await Promise.all([store.delete(sessionKey(id)), store.delete(RECORDS.sessionSeen.key(id))]);
}

/** Newest first. */
export async function listSessions(store: KeyValueStore, now: number): Promise<SessionRecord[]> {
  const keys = await store.list(RECORDS.session.prefix);
  const records = await Promise.all(keys.map((key) => store.get<SessionRecord>(key)));
  const live = records.filter((s): s is SessionRecord => s?.kind === "session" && s.expiresAt > now);
  const seen = await Promise.all(live.map((s) => readSeen(store, s.id)));
  return live
    .map((s, i) => ({ ...s, lastSeenAt: seenAt(s, seen[i] ?? null) }))
    .sort((a, b) => b.createdAt - a.createdAt);
}

export async function endAllSessions(store: KeyValueStore): Promise<number> {
  const [keys, seen] = await Promise.all([store.list(RECORDS.session.prefix), store.list(RECORDS.sessionSeen.prefix)]);
  await Promise.all([...keys, ...seen].map((key) => store.delete(key)));
  return keys.length;
}

/** "Keep me signed in" ticked: the sign-in page's checkbox sends "on", the console "true". */
export function rememberRequested(form: Fields<"remember">): boolean {
  const value = form.get("remember");
  return value === "on" || value === "true";
}

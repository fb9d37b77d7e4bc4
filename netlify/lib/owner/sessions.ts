// Owner sessions ("Keep me signed in on this device", and the console). The cookie is a signed
// JWT of its own type that names a session record; the record is what makes it revocable:
// signing out deletes it, and a cookie whose record is gone is worth nothing.
import { randomBytes } from "node:crypto";
import type { Config } from "../platform/config.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { signTyped, verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";
import { importCommonJs } from "../core/commonjs.ts";
import { loadOnce } from "../core/load-once.ts";

// Loaded with the first cookie to read or write (a CommonJS package: not at every cold start).
const cookies = loadOnce(() => importCommonJs(() => import("cookie")));

export const SESSION_TYPE = "indieauth-session+jwt";
/** "Keep me signed in": a cookie that outlives the browser. */
const PERSISTENT_SESSION_MS = 30 * 24 * 60 * 60 * 1000;
/** Without it (console sign-in only): a browser-session cookie, and the record ends anyway. */
const BROWSER_SESSION_MS = 12 * 60 * 60 * 1000;
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

/** What sessions need of the configuration: their key, the issuer, and whether this is local
 * development (http://localhost: no Secure attribute, so no __Host- prefix). */
type SessionSettings = Pick<Config, "issuer" | "development"> & { keys: Pick<Config["keys"], "session"> };

const sessionKey = RECORDS.session.key;
const SESSION_ID = /^[A-Za-z0-9_-]{22}$/;

/** `__Host-`: only ever set by this exact origin, over HTTPS, for the whole site. Browsers
 * refuse that prefix without `Secure`, which local http development cannot have. */
export function sessionCookieName(development: boolean): string {
  return development ? "indieauth_session" : "__Host-indieauth_session";
}

function sessionKind(settings: SessionSettings): JwtKind {
  return { key: settings.keys.session, issuer: settings.issuer, typ: SESSION_TYPE, audience: `${settings.issuer}session` };
}

function cookieOptions(settings: SessionSettings) {
  return { httpOnly: true, secure: !settings.development, sameSite: "lax" as const, path: "/" };
}

interface NewSession {
  method: SessionRecord["method"];
  persistent: boolean;
  ip: string;
  userAgent: string;
}

/** Creates the record and the Set-Cookie header value that carries it. */
export async function startSession(store: KeyValueStore, settings: SessionSettings, input: NewSession, now: number): Promise<{ session: SessionRecord; setCookie: string }> {
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
  if (!(await store.setIfNew(sessionKey(id), session))) throw new Error("session id collision");
  const jwt = await signTyped({ sid: id }, sessionKind(settings), now, session.expiresAt);
  const { serialize: serializeCookie } = await cookies();
  const setCookie = serializeCookie(sessionCookieName(settings.development), jwt, {
    ...cookieOptions(settings),
    ...(input.persistent ? { maxAge: Math.floor(PERSISTENT_SESSION_MS / 1000) } : {}),
  });
  return { session, setCookie };
}

/** The session id a request's cookie names, if its signature, type and expiry are right. */
async function sessionIdOf(req: Request, settings: SessionSettings, now: number): Promise<string | null> {
  const header = req.headers.get("cookie");
  if (!header || header.length > 8192) return null;
  const { parse: parseCookies } = await cookies();
  let value: string | undefined;
  try {
    value = parseCookies(header)[sessionCookieName(settings.development)];
  } catch {
    return null;
  }
  if (!value) return null;
  const payload = await verifyTyped<{ sid: unknown }>(value, sessionKind(settings), now, 2048);
  return typeof payload?.sid === "string" && SESSION_ID.test(payload.sid) ? payload.sid : null;
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
export async function currentSession(store: KeyValueStore, req: Request, settings: SessionSettings, now: number): Promise<SessionRecord | null> {
  const id = await sessionIdOf(req, settings, now);
  if (!id) return null;
  const [session, seen] = await Promise.all([store.get<SessionRecord>(sessionKey(id)), readSeen(store, id)]);
  if (!session || session.kind !== "session" || session.id !== id || session.expiresAt <= now) return null;
  const lastSeenAt = seenAt(session, seen);
  if (now - lastSeenAt < TOUCH_INTERVAL_MS) return { ...session, lastSeenAt };
  await store.set(RECORDS.sessionSeen.key(id), { kind: "session-seen", lastSeenAt: now, expiresAt: session.expiresAt } satisfies SessionSeenRecord);
  return { ...session, lastSeenAt: now };
}

/** Whether the request carries a session cookie at all (live or not). */
export function hasSessionCookie(req: Request, settings: SessionSettings): boolean {
  return (req.headers.get("cookie") ?? "").includes(`${sessionCookieName(settings.development)}=`);
}

/** The Set-Cookie value that removes the cookie from this browser. */
export async function clearSessionCookie(settings: SessionSettings): Promise<string> {
  const { serialize: serializeCookie } = await cookies();
  return serializeCookie(sessionCookieName(settings.development), "", { ...cookieOptions(settings), maxAge: 0 });
}

export async function endSession(store: KeyValueStore, id: string): Promise<void> {
  if (SESSION_ID.test(id)) await Promise.all([store.delete(sessionKey(id)), store.delete(RECORDS.sessionSeen.key(id))]);
}

/** Every live session, newest first. */
export async function listSessions(store: KeyValueStore, now: number): Promise<SessionRecord[]> {
  const keys = await store.list(RECORDS.session.prefix);
  const records = await Promise.all(keys.map((key) => store.get<SessionRecord>(key)));
  const live = records.filter((s): s is SessionRecord => s !== null && s.kind === "session" && s.expiresAt > now);
  const seen = await Promise.all(live.map((s) => readSeen(store, s.id)));
  return live.map((s, i) => ({ ...s, lastSeenAt: seenAt(s, seen[i] ?? null) })).sort((a, b) => b.createdAt - a.createdAt);
}

/** Signs out everywhere. */
export async function endAllSessions(store: KeyValueStore): Promise<number> {
  const [keys, seen] = await Promise.all([store.list(RECORDS.session.prefix), store.list(RECORDS.sessionSeen.prefix)]);
  await Promise.all([...keys, ...seen].map((key) => store.delete(key)));
  return keys.length;
}

/** "Keep me signed in" ticked: the sign-in page's checkbox sends "on", the console "true". */
export function rememberRequested(form: URLSearchParams): boolean {
  const value = form.get("remember");
  return value === "on" || value === "true";
}

// Session cookies of earlier versions: `__Host-indieauth_session` (`indieauth_session` in local
// development), at Path=/, so sent with every request to the host: added to a blog on the blog's
// own host, its pages, functions, edge functions and proxies to other services got it too. Such a
// cookie is no credential any more (its token's type is not the session's: sessions.ts), and
// where one still comes to a function that reads sessions, the answer removes it and the session
// it names is ended, so that a copy something else kept is worth nothing and the console lists
// no session that nothing can use. The owner signs in again, once.
import { cookieValues } from "../core/cookie-values.ts";
import { importCommonJs } from "../core/commonjs.ts";
import { loadOnce } from "../core/load-once.ts";
import { verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";
import type { Config } from "../platform/config.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { endSession } from "./sessions.ts";

const cookies = loadOnce(() => importCommonJs(() => import("cookie")));

const RETIRED_TYPE = "indieauth-session+jwt";

type Settings = Pick<Config, "issuer" | "development"> & { keys: Pick<Config["keys"], "session"> };

const retiredName = (development: boolean) => (development ? "indieauth_session" : "__Host-indieauth_session");

function retiredKind(settings: Settings): JwtKind {
  return { key: settings.keys.session, issuer: settings.issuer, typ: RETIRED_TYPE, audience: `${settings.issuer}session` };
}

/** The Set-Cookie value that removes an earlier version's session cookie the request carries
 * (after ending the session it names), or null when it carries none. In local development the
 * name is the current cookie's too: there only a copy holding an earlier version's token counts. */
export async function retireSessionCookie(store: KeyValueStore, req: Request, settings: Settings, now: number): Promise<string | null> {
  const name = retiredName(settings.development);
  const values = await cookieValues(req.headers.get("cookie"), name);
  if (values.length === 0) return null;
  const named = await Promise.all(values.map((value) => verifyTyped<{ sid: unknown }>(value, retiredKind(settings), now, 2048)));
  const sessionIds = named.map((payload) => payload?.sid).filter((sid): sid is string => typeof sid === "string");
  if (settings.development && sessionIds.length === 0) return null;
  await Promise.all(sessionIds.map((id) => endSession(store, id)));
  const { serialize } = await cookies();
  return serialize(name, "", { httpOnly: true, secure: !settings.development, sameSite: "lax", path: "/", maxAge: 0 });
}

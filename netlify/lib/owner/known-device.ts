// The known-device cookie: set on every successful sign-in, it tells the guessing throttle that
// this browser has signed in before, so that failures from anywhere else never hold it back
// (owner/throttle.ts, docs/security.md). A signed JWT of its own type carrying a random device id
// and nothing else, SameSite=Strict (only this site's own pages send requests that read it). It
// grants nothing by itself: the password or a passkey is still needed.
import { randomBytes } from "node:crypto";
import { signTyped, verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";
import { importCommonJs } from "../core/commonjs.ts";
import { cookieValues } from "../core/cookie-values.ts";
import { loadOnce } from "../core/load-once.ts";
import type { Config } from "../platform/config.ts";
import { APPROVE_PATH, PAGES_PREFIX } from "../pages/paths.ts";
import { DEVICE_LIFETIME_MS } from "../core/policy.ts";

const cookies = loadOnce(() => importCommonJs(() => import("cookie")));

const DEVICE_TYPE = "indieauth-device+jwt";
/** The sign-in page's form (and its check), and the console's APIs. */
const DEVICE_COOKIE_PATHS = [APPROVE_PATH, `${PAGES_PREFIX}/api`] as const;
const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;

type DeviceSettings = Pick<Config, "issuer" | "development"> & { keys: Pick<Config["keys"], "device"> };

/** Local http development cannot have `Secure`, which the `__Secure-` prefix needs. */
function deviceCookieName(development: boolean): string {
  return development ? "indieauth_device" : "__Secure-indieauth_device";
}

function deviceKind(settings: DeviceSettings): JwtKind {
  return { key: settings.keys.device, issuer: settings.issuer, typ: DEVICE_TYPE, audience: `${settings.issuer}device` };
}

/** The device id the request's known-device cookie carries, if its signature, type and expiry
 * are right; null otherwise. Every copy is checked: a cookie of this name that another host of
 * the site set on the parent domain cannot hide ours (core/cookie-values.ts). */
export async function knownDevice(req: Request, settings: DeviceSettings, now: number): Promise<string | null> {
  for (const value of await cookieValues(req.headers.get("cookie"), deviceCookieName(settings.development))) {
    const payload = await verifyTyped<{ did: unknown }>(value, deviceKind(settings), now, 1024);
    if (typeof payload?.did === "string" && DEVICE_ID.test(payload.did)) return payload.did;
  }
  return null;
}

/** The Set-Cookie values that (re)mark this browser as known, under `deviceId` (a new one when
 * null), for another year. */
export async function rememberDevice(
  settings: DeviceSettings,
  deviceId: string | null,
  now: number,
): Promise<string[]> {
  const did = deviceId ?? randomBytes(16).toString("base64url");
  const expiresAt = now + DEVICE_LIFETIME_MS;
  const jwt = await signTyped({ did }, deviceKind(settings), now, expiresAt);
  const { serialize } = await cookies();
  const options = {
    httpOnly: true,
    secure: !settings.development,
    sameSite: "strict" as const,
    maxAge: Math.floor(DEVICE_LIFETIME_MS / 1000),
  };
  return DEVICE_COOKIE_PATHS.map((path) =>
    serialize(deviceCookieName(settings.development), jwt, { ...options, path }),
  );
}

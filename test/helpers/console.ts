// Calling the owner console's API in-process, as its page would (same-origin fetches with
// the session cookie), and reading the cookies it sets.
import { expect } from "vitest";
import { accountApi } from "../../netlify/lib/endpoints/account.ts";
import { passkeysApi } from "../../netlify/lib/endpoints/passkeys.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import { BASE } from "./oauth.ts";
import { TEST_PASSWORD } from "./env.ts";

export const CONSOLE_IP = "198.51.100.20";
export const CHROME_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

export interface CallOptions {
  /** The Cookie header: "name=value". */
  cookie?: string;
  /** Sent as a cross-site request would be. */
  crossSite?: boolean;
  ip?: string;
}

function headers(options: CallOptions, json: boolean): Record<string, string> {
  const h: Record<string, string> = {
    "User-Agent": CHROME_UA,
    "Sec-Fetch-Site": options.crossSite ? "cross-site" : "same-origin",
    Origin: options.crossSite ? "https://evil.example" : BASE,
  };
  if (json) h["Content-Type"] = "application/json";
  if (options.cookie) h.Cookie = options.cookie;
  return h;
}

export function consoleGet(rt: Runtime, options: CallOptions = {}): Promise<Response> {
  const { Origin: _origin, ...get } = headers(options, false);
  return accountApi(new Request(`${BASE}${ACCOUNT_API}`, { headers: get }), rt, { ip: options.ip ?? CONSOLE_IP, userAgent: CHROME_UA });
}

export function consolePost(rt: Runtime, action: string, body: Record<string, string>, options: CallOptions = {}): Promise<Response> {
  return accountApi(
    new Request(`${BASE}${ACCOUNT_API}${action}`, { method: "POST", headers: headers(options, true), body: JSON.stringify(body) }),
    rt,
    { ip: options.ip ?? CONSOLE_IP, userAgent: CHROME_UA },
  );
}

export function passkeysPost(rt: Runtime, action: string, body: Record<string, string>, options: CallOptions = {}): Promise<Response> {
  return passkeysApi(
    new Request(`${BASE}${PASSKEYS_API}${action}`, { method: "POST", headers: headers(options, true), body: JSON.stringify(body) }),
    rt,
    { ip: options.ip ?? CONSOLE_IP, userAgent: CHROME_UA },
  );
}

/** The "name=value" part of a response's Set-Cookie, for the next request's Cookie header. */
export function cookieFrom(response: Response): string {
  const setCookie = response.headers.get("set-cookie");
  expect(setCookie).toBeTruthy();
  return setCookie!.split(";", 1)[0]!;
}

/** Signs in to the console with the password; returns the session cookie. */
export async function consoleSignIn(rt: Runtime, options: { remember?: boolean; ip?: string } = {}): Promise<string> {
  const response = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD, remember: options.remember ? "true" : "false" }, options);
  expect(response.status).toBe(200);
  return cookieFrom(response);
}

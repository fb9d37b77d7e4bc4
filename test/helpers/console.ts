// Calling the owner console's API in-process, as its page would (same-origin fetches with
// the session cookie), and reading the cookies it sets. The requests come from requests.ts.
import { expect } from "vitest";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import type { FullRuntime } from "./runtime.ts";
import { endpoints } from "./endpoints.ts";
import { CHROME_UA, CONSOLE_IP, type ConsoleCallOptions, consoleGetRequest, consolePostRequest } from "./requests.ts";
import { TEST_PASSWORD } from "./env.ts";

export function consoleGet(rt: FullRuntime, options: ConsoleCallOptions = {}, action = ""): Promise<Response> {
  return endpoints.account(consoleGetRequest(options, action), rt, {
    ip: options.ip ?? CONSOLE_IP,
    userAgent: CHROME_UA,
  });
}

export function consolePost(
  rt: FullRuntime,
  action: string,
  body: Record<string, string>,
  options: ConsoleCallOptions = {},
): Promise<Response> {
  return endpoints.account(consolePostRequest(ACCOUNT_API, action, body, options), rt, {
    ip: options.ip ?? CONSOLE_IP,
    userAgent: CHROME_UA,
  });
}

export function passkeysPost(
  rt: FullRuntime,
  action: string,
  body: Record<string, string>,
  options: ConsoleCallOptions = {},
): Promise<Response> {
  return endpoints.passkeys(consolePostRequest(PASSKEYS_API, action, body, options), rt, {
    ip: options.ip ?? CONSOLE_IP,
    userAgent: CHROME_UA,
  });
}

/** The "name=value" part of a response's Set-Cookie, for the next request's Cookie header. */
export function cookieFrom(response: Response): string {
  const setCookie = response.headers.get("set-cookie");
  expect(setCookie).toBeTruthy();
  return setCookie!.split(";", 1)[0]!;
}

/** Signs in to the console with the password; returns the session cookie. */
export async function consoleSignIn(
  rt: FullRuntime,
  options: { remember?: boolean; ip?: string } = {},
): Promise<string> {
  const response = await consolePost(
    rt,
    "/sign-in",
    { password: TEST_PASSWORD, remember: options.remember ? "true" : "false" },
    options,
  );
  expect(response.status).toBe(200);
  return cookieFrom(response);
}

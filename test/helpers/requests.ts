// The requests a client, the sign-in page or the owner console sends, built without calling
// anything: the tests and the bench (scripts/bench/) share them. No vitest here.
import { createHash, randomBytes } from "node:crypto";
import { ACCOUNT_API } from "../../netlify/lib/pages/paths.ts";
import { TEST_PASSWORD } from "./env.ts";

export const BASE = "https://auth.jane.example";
export const CLIENT_ID = "https://app.example.com/";
export const REDIRECT_URI = "https://app.example.com/callback";
/** The address the sign-in tests and the bench present (the console tests use CONSOLE_IP). */
export const CLIENT_IP = "203.0.113.7";
export const CONSOLE_IP = "198.51.100.20";
export const CHROME_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** GET /auth's query; a null override leaves the parameter out. */
export function authorizationParams(overrides: Record<string, string | null> = {}): URLSearchParams {
  const params: Record<string, string | null> = {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "state-123",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile create",
    me: "https://jane.example/",
    ...overrides,
  };
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) search.append(name, value);
  return search;
}

export function authorizationRequest(params: URLSearchParams | string, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}/auth?${params.toString()}`, { headers });
}

/** A form POST to BASE + path. */
export function post(
  path: string,
  fields: Record<string, string> | URLSearchParams,
  headers: Record<string, string> = {},
): Request {
  return new Request(`${BASE}${path}`, { method: "POST", body: new URLSearchParams(fields), headers });
}

export function bearer(token: string | null): Record<string, string> {
  return token === null ? {} : { Authorization: `Bearer ${token}` };
}

export interface ApproveOptions {
  /** The owner's password; null sends none (a session signs in instead). */
  password?: string | null;
  decision?: string;
  scopes?: string[];
  ip?: string;
  /** Sent as User-Agent and handed to the handler as the device's name. */
  userAgent?: string;
  headers?: Record<string, string>;
  /** Ticks "Keep me signed in on this device". */
  remember?: boolean;
  /** Extra form fields (a passkey's answer, say). */
  fields?: Record<string, string>;
}

/** The sign-in page's POST /auth/approve, same-origin. */
export function approveRequest(request: string, options: ApproveOptions = {}): Request {
  const body = new URLSearchParams({ request, decision: options.decision ?? "approve" });
  const password = options.password === undefined ? TEST_PASSWORD : options.password;
  if (password !== null) body.set("password", password);
  for (const scope of options.scopes ?? []) body.append("scope", scope);
  if (options.remember) body.set("remember", "on");
  for (const [name, value] of Object.entries(options.fields ?? {})) body.set(name, value);
  const agent: Record<string, string> = options.userAgent === undefined ? {} : { "User-Agent": options.userAgent };
  return post("/auth/approve", body, { Origin: BASE, "Sec-Fetch-Site": "same-origin", ...agent, ...options.headers });
}

export interface SignedIn {
  code: string;
  verifier: string;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  [key: string]: unknown;
}

/** POST /token's authorization_code form; a null override leaves the field out. */
export function codeForm(signedIn: SignedIn, overrides: Record<string, string | null> = {}): Record<string, string> {
  const fields: Record<string, string | null> = {
    grant_type: "authorization_code",
    code: signedIn.code,
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    code_verifier: signedIn.verifier,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== null));
}

export function refreshForm(refreshToken: string, overrides: Record<string, string> = {}): Record<string, string> {
  return { grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID, ...overrides };
}

export function introspectionRequest(token: string | null, fields: Record<string, string> = {}, query = ""): Request {
  return post(`/introspect${query}`, fields, bearer(token));
}

export function userinfoRequest(token: string | null): Request {
  return new Request(`${BASE}/userinfo`, { headers: bearer(token) });
}

export interface ConsoleCallOptions {
  /** The Cookie header: "name=value". */
  cookie?: string;
  /** Sent as a cross-site request would be. */
  crossSite?: boolean;
  ip?: string;
}

function consoleHeaders(options: ConsoleCallOptions, json: boolean): Record<string, string> {
  const h: Record<string, string> = {
    "User-Agent": CHROME_UA,
    "Sec-Fetch-Site": options.crossSite ? "cross-site" : "same-origin",
    Origin: options.crossSite ? "https://evil.example" : BASE,
  };
  if (json) h["Content-Type"] = "application/json";
  if (options.cookie) h.Cookie = options.cookie;
  return h;
}

/** The console page's GET of the account API, or of one of its actions (a same-origin GET sends no Origin). */
export function consoleGetRequest(options: ConsoleCallOptions = {}, action = ""): Request {
  const { Origin: _origin, ...headers } = consoleHeaders(options, false);
  return new Request(`${BASE}${ACCOUNT_API}${action}`, { headers });
}

/** A JSON POST to `api` + action (ACCOUNT_API or PASSKEYS_API). */
export function consolePostRequest(
  api: string,
  action: string,
  body: Record<string, string>,
  options: ConsoleCallOptions = {},
): Request {
  return new Request(`${BASE}${api}${action}`, {
    method: "POST",
    headers: consoleHeaders(options, true),
    body: JSON.stringify(body),
  });
}

export function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
}

/** What a hand-over to the sign-in page offers: signed into its request, never beside it. */
export function offerIn(response: Response): Record<string, unknown> {
  const request = new URLSearchParams((response.headers.get("location") ?? "").split("#")[1]).get("request");
  if (!request) throw new Error(`no signed request in ${response.status} ${response.headers.get("location")}`);
  return decodePayload(request).offer as Record<string, unknown>;
}

export function redirectParams(response: Response): URLSearchParams {
  return new URL(response.headers.get("location")!).searchParams;
}

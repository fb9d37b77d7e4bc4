// The environment, read and validated once per cold start. A problem never throws: endpoints
// answer with a message that names the variable, and the build prints the same warnings.
import { parsePasswordHash, type PasswordHash } from "../core/password-hash.ts";
import { parseProfileUrl } from "../core/urls.ts";
import { deriveKey } from "../crypto/secrets.ts";
import { readNotify, type NotifySettings } from "./notify-config.ts";
import { builtFor, readSetup, type Build, type Setup } from "./setup.ts";

export interface Profile {
  name?: string;
  url: string;
  photo?: string;
  email?: string;
}

export interface Config {
  /** The owner's canonical profile URL. */
  me: string;
  /** This deployment's origin, without a trailing slash: https://auth.example.com */
  baseUrl: string;
  /** RFC 9207 issuer: the base URL with a trailing slash; every `iss` sent is exactly this. */
  issuer: string;
  /** Netlify's development context (`netlify dev`): localhost and ports are accepted. */
  development: boolean;
  /** Standalone, added to the blog on its own host (shared origin), or on a host of its own
   * (INDIEAUTH_HOST, BASE_URL's host): see platform/setup.ts. */
  setup: Setup;
  password: PasswordHash;
  profile: Profile;
  keys: {
    /** Signs the authorization request that the static sign-in page carries to the approve step. */
    requestObject: Uint8Array;
    /** Derives the code of a signed sign-in request, so that approving it twice gives one code. */
    code: Uint8Array;
    /** Signs the owner's session cookies. */
    session: Uint8Array;
    /** Signs the tickets that carry a WebAuthn challenge from its options to its verification. */
    webauthn: Uint8Array;
    /** Signs the known-device cookie (owner/known-device.ts). */
    device: Uint8Array;
  };
  /** PASSWORD_LOGIN: false ("off") lets only passkeys sign in, once at least one exists. */
  passwordLogin: boolean;
  /** Access token lifetime (ACCESS_TOKEN_TTL), in milliseconds. */
  accessTokenTtlMs: number;
  /** Refresh token idle lifetime (REFRESH_TOKEN_TTL), in milliseconds. */
  refreshTokenTtlMs: number;
  /** A resource server's credential for POST /introspect (INTROSPECTION_TOKEN), if set. */
  introspectionToken?: string;
  /** Where the owner's alerts go (NOTIFY_URL, NOTIFY_FORMAT); absent when alerts are off. */
  notify?: NotifySettings;
}

export interface ConfigProblem {
  variable: string;
  /** What is wrong. */
  message: string;
  /** What to do about it. */
  fix: string;
}

/** A problem as the readers of the environment find it; loadConfig adds the fix. */
type Found = Omit<ConfigProblem, "fix">;

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: ConfigProblem[]; development: boolean };

/** Where the server runs, a deployment may have been set up from a clone of this repository or
 * from a blog: its setup page names both ways to make a hash. check-config and the build plugin
 * know which, and name only the command that exists there. */
const EITHER_HASH_COMMAND = "npm run hash-password (in this repository) or npx netlify-indieauth hash-password (in your blog)";

export interface ConfigOptions {
  /** The command that makes a PASSWORD_HASH where the fixes are read. */
  hashPasswordCommand?: string;
}

/** Stands for the hash-password command in FIXES. */
const HASH_COMMAND = "{hash-password}";

/** How to mend each variable: worded once, for the setup page, the JSON answers and check-config. */
const FIXES: Record<string, string> = {
  ME: "Set ME to your website's address, e.g. ME=https://jane.example/",
  SECRET: "Set SECRET to at least 32 random characters, e.g. the output of: openssl rand -base64 32",
  PASSWORD_HASH: `Make one with: ${HASH_COMMAND}, and set PASSWORD_HASH to what it prints`,
  PASSWORD_SECRET: `Use a bcrypt hash ($2a$, $2b$ or $2y$), or set PASSWORD_HASH from ${HASH_COMMAND} instead`,
  BASE_URL: "Set BASE_URL to this deployment's origin, e.g. BASE_URL=https://auth.jane.example (Netlify sets URL for you in its builds)",
  URL: "Set BASE_URL to this deployment's origin, e.g. BASE_URL=https://auth.jane.example",
  PROFILE_URL: "Use an http(s) URL, or leave it unset to use ME",
  PROFILE_PHOTO: "Use an http(s) URL of an image",
  PROFILE_EMAIL: "Use a plain address such as jane@jane.example, or leave it unset",
  ACCESS_TOKEN_TTL: "Use a duration such as 30d, 12h or 3600 (seconds)",
  REFRESH_TOKEN_TTL: "Use a duration such as 90d",
  INTROSPECTION_TOKEN: "Use at least 32 random characters, e.g. the output of: openssl rand -base64 32",
  PASSWORD_LOGIN: "Use on or off",
  NOTIFY_URL: "Use your webhook's https URL (ntfy topic, Slack, Discord or Matrix hookshot webhook, or any JSON receiver), or leave it unset",
  NOTIFY_FORMAT: "Use ntfy, slack, discord, matrix or json, or leave it unset to choose by the URL's host",
  INDIEAUTH_HOST: "Set INDIEAUTH_HOST to the auth host alone (e.g. auth.jane.example, a domain alias of the blog's site) and BASE_URL to https:// and that host; or leave both unset to share the blog's origin",
};

export type Env = Record<string, string | undefined>;

function isDevelopment(env: Env): boolean {
  return env.CONTEXT === "dev" || env.NETLIFY_DEV === "true";
}

function readBaseUrl(env: Env, development: boolean, problems: Found[]): string | undefined {
  const variable = env.BASE_URL ? "BASE_URL" : "URL";
  const raw = env.BASE_URL || env.URL;
  if (!raw) {
    problems.push({ variable: "BASE_URL", message: "BASE_URL is missing (and Netlify's URL is not set)" });
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push({ variable, message: `${variable} is not a URL: ${JSON.stringify(raw)}` });
    return undefined;
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    problems.push({ variable, message: `${variable} must be an origin only, like https://auth.example.com (no path, query or fragment)` });
    return undefined;
  }
  if (url.protocol !== "https:" && !(development && url.protocol === "http:")) {
    problems.push({ variable, message: `${variable} must use https` });
    return undefined;
  }
  return url.origin;
}

function readProfile(env: Env, me: string | undefined, problems: Found[]): Profile {
  const profile: Profile = { url: me ?? "" };
  const name = env.PROFILE_NAME?.trim();
  if (name) profile.name = name.slice(0, 200);
  for (const [variable, key] of [["PROFILE_URL", "url"], ["PROFILE_PHOTO", "photo"]] as const) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    try {
      const url = new URL(raw, me);
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("scheme");
      profile[key] = url.href;
    } catch {
      problems.push({ variable, message: `${variable} must be an http(s) URL` });
    }
  }
  const email = env.PROFILE_EMAIL?.trim();
  if (email) {
    if (/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(email)) profile.email = email;
    else problems.push({ variable: "PROFILE_EMAIL", message: "PROFILE_EMAIL is not an e-mail address" });
  }
  return profile;
}

const DURATION = /^(\d{1,9})\s*(s|m|h|d)?$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** "30d", "12h", "90m" or plain seconds. */
function readDuration(env: Env, variable: string, fallbackMs: number, problems: Found[]): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallbackMs;
  const match = DURATION.exec(raw);
  const ms = match ? Number(match[1]) * UNIT_MS[(match[2] ?? "s") as keyof typeof UNIT_MS] : NaN;
  if (!(ms >= 60_000 && ms <= 400 * UNIT_MS.d)) {
    problems.push({ variable, message: `${variable} must be a duration between 1 minute and 400 days, such as 30d, 12h or 3600` });
    return fallbackMs;
  }
  return ms;
}

/** "on"/"off" (also true/false, yes/no, 1/0). */
function readSwitch(env: Env, variable: string, fallback: boolean, problems: Found[]): boolean {
  const raw = env[variable]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (["on", "true", "yes", "1"].includes(raw)) return true;
  if (["off", "false", "no", "0"].includes(raw)) return false;
  problems.push({ variable, message: `${variable} must be on or off` });
  return fallback;
}

/** `build`: which build made the running code (baked in by the build; tests may say). */
export function loadConfig(env: Env, build: Build = builtFor(), options: ConfigOptions = {}): ConfigResult {
  const problems: Found[] = [];
  const development = isDevelopment(env);

  let me: string | undefined;
  if (!env.ME) {
    problems.push({ variable: "ME", message: "ME is missing" });
  } else {
    const checked = parseProfileUrl(env.ME.trim(), { allowLocalhost: development });
    if (checked.ok) me = checked.url.href;
    else problems.push({ variable: "ME", message: `ME is not a valid profile URL: ${checked.reason}${development ? "" : " (localhost and ports are accepted only in development)"}` });
  }

  const secret = env.SECRET;
  if (!secret) problems.push({ variable: "SECRET", message: "SECRET is missing" });
  else if (secret.length < 32) problems.push({ variable: "SECRET", message: "SECRET must be at least 32 characters long" });

  let password: PasswordHash | undefined;
  const passwordVariable = env.PASSWORD_HASH ? "PASSWORD_HASH" : env.PASSWORD_SECRET ? "PASSWORD_SECRET" : undefined;
  if (!passwordVariable) {
    problems.push({ variable: "PASSWORD_HASH", message: "PASSWORD_HASH is missing" });
  } else {
    const parsed = parsePasswordHash(env[passwordVariable] ?? "");
    if ("error" in parsed) problems.push({ variable: passwordVariable, message: `${passwordVariable} ${parsed.error}` });
    else password = parsed;
  }

  const baseUrl = readBaseUrl(env, development, problems);
  const profile = readProfile(env, me, problems);
  const accessTokenTtlMs = readDuration(env, "ACCESS_TOKEN_TTL", 30 * UNIT_MS.d, problems);
  const refreshTokenTtlMs = readDuration(env, "REFRESH_TOKEN_TTL", 90 * UNIT_MS.d, problems);
  const introspectionToken = env.INTROSPECTION_TOKEN?.trim() || undefined;
  if (introspectionToken !== undefined && introspectionToken.length < 32) {
    problems.push({ variable: "INTROSPECTION_TOKEN", message: "INTROSPECTION_TOKEN must be at least 32 characters long" });
  }

  const passwordLogin = readSwitch(env, "PASSWORD_LOGIN", true, problems);
  const notify = readNotify(env, development, problems);
  const setup = readSetup(env.INDIEAUTH_HOST, build, baseUrl, development, problems);

  if (problems.length > 0 || !me || !secret || !password || !baseUrl) {
    const fixFor = (variable: string) => (FIXES[variable] ?? "See the README's table of environment variables").replace(HASH_COMMAND, () => options.hashPasswordCommand ?? EITHER_HASH_COMMAND);
    return { ok: false, development, problems: problems.map((p) => ({ ...p, fix: fixFor(p.variable) })) };
  }
  return {
    ok: true,
    config: {
      me,
      baseUrl,
      issuer: `${baseUrl}/`,
      development,
      setup,
      password,
      profile,
      keys: {
        requestObject: deriveKey(secret, "authorization-request"),
        code: deriveKey(secret, "authorization-code"),
        session: deriveKey(secret, "owner-session"),
        webauthn: deriveKey(secret, "webauthn-ticket"),
        device: deriveKey(secret, "known-device"),
      },
      passwordLogin,
      accessTokenTtlMs,
      refreshTokenTtlMs,
      ...(introspectionToken ? { introspectionToken } : {}),
      ...(notify ? { notify } : {}),
    },
  };
}

let cached: ConfigResult | undefined;

/** The configuration of this cold start. */
export function getConfig(env: Env = process.env): ConfigResult {
  cached ??= loadConfig(env);
  return cached;
}

export function describeProblems(problems: readonly ConfigProblem[]): string {
  return `This IndieAuth server is not configured yet: ${problems.map((p) => `${p.message} (${p.fix})`).join("; ")}.`;
}

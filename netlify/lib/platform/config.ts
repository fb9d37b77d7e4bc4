// The environment, read and validated once per cold start. A problem never throws: endpoints
// answer with a message that names the variable, and the build prints the same warnings.
import { parsePasswordHash, type PasswordHash } from "../core/password-hash.ts";
import { parseProfileUrl } from "../core/urls.ts";
import { DAY } from "../core/time.ts";
import { deriveKey } from "../crypto/secrets.ts";
import { fixFor } from "./config-fixes.ts";
import {
  isDevelopment,
  readBaseUrl,
  readDuration,
  readProfile,
  readSwitch,
  type Env,
  type Found,
  type Profile,
} from "./config-values.ts";
import { readNotify, type NotifySettings } from "./notify-config.ts";
import { builtFor, readSetup, type Build, type Setup } from "./setup.ts";

export interface Config {
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
    /** Signs the sign-in page's address of an app's logo (clients/logo-link.ts). */
    logo: Uint8Array;
    /** Tags each refresh token with its grant and generation (protocol/grant-tokens.ts). */
    refreshToken: Uint8Array;
    /** Signs the registration an app's client_id carries (protocol/registered-clients.ts). */
    registration: Uint8Array;
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

export interface ConfigProblem extends Found {
  fix: string;
}

export type { Env, Profile };

export type ConfigResult =
  { ok: true; config: Config } | { ok: false; problems: ConfigProblem[]; development: boolean };

interface ConfigOptions {
  /** The command that makes a PASSWORD_HASH where the fixes are read. */
  hashPasswordCommand?: string;
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
    else
      problems.push({
        variable: "ME",
        message: `ME is not a valid profile URL: ${checked.reason}${development ? "" : " (localhost and ports are accepted only in development)"}`,
      });
  }

  const secret = env.SECRET;
  if (!secret) problems.push({ variable: "SECRET", message: "SECRET is missing" });
  else if (secret.length < 32)
    problems.push({ variable: "SECRET", message: "SECRET must be at least 32 characters long" });

  let password: PasswordHash | undefined;
  const passwordVariable = env.PASSWORD_HASH ? "PASSWORD_HASH" : env.PASSWORD_SECRET ? "PASSWORD_SECRET" : undefined;
  if (!passwordVariable) {
    problems.push({ variable: "PASSWORD_HASH", message: "PASSWORD_HASH is missing" });
  } else {
    const parsed = parsePasswordHash(env[passwordVariable] ?? "");
    if ("error" in parsed)
      problems.push({ variable: passwordVariable, message: `${passwordVariable} ${parsed.error}` });
    else password = parsed;
  }

  const baseUrl = readBaseUrl(env, development, problems);
  const profile = readProfile(env, me, problems);
  const accessTokenTtlMs = readDuration(env, "ACCESS_TOKEN_TTL", 30 * DAY, problems);
  const refreshTokenTtlMs = readDuration(env, "REFRESH_TOKEN_TTL", 90 * DAY, problems);
  const introspectionToken = env.INTROSPECTION_TOKEN?.trim() || undefined;
  if (introspectionToken !== undefined && introspectionToken.length < 32)
    problems.push({
      variable: "INTROSPECTION_TOKEN",
      message: "INTROSPECTION_TOKEN must be at least 32 characters long",
    });

  const passwordLogin = readSwitch(env, "PASSWORD_LOGIN", true, problems);
  const notify = readNotify(env, development, problems);
  const setup = readSetup(env.INDIEAUTH_HOST, build, baseUrl, development, problems);

  if (problems.length > 0 || !me || !secret || !password || !baseUrl) {
    return {
      ok: false,
      development,
      problems: problems.map((p) => ({ ...p, fix: fixFor(p.variable, options.hashPasswordCommand) })),
    };
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
        logo: deriveKey(secret, "client-logo"),
        refreshToken: deriveKey(secret, "refresh-token-tag"),
        registration: deriveKey(secret, "registered-client"),
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

export function getConfig(env: Env = process.env): ConfigResult {
  cached ??= loadConfig(env);
  return cached;
}

export function describeProblems(problems: readonly ConfigProblem[]): string {
  return `This IndieAuth server is not configured yet: ${problems.map((p) => `${p.message} (${p.fix})`).join("; ")}.`;
}

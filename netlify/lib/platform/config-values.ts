// Readers of single environment variables for platform/config.ts: the deployment's origin, the
// owner's profile, durations and on/off switches. Each adds a problem naming the variable rather
// than throw; config.ts adds how to fix it.
import { DAY, HOUR, MINUTE } from "../core/time.ts";
import { urlOf } from "../core/urls.ts";

/** A problem as the readers of the environment find it; loadConfig adds the fix. */
export interface Found {
  variable: string;
  message: string;
}

/** Records a problem of `variable`; answers undefined, for a reader that then gives up. */
export const reporter =
  (problems: Found[], variable: string) =>
  (message: string): undefined =>
    void problems.push({ variable, message });

export interface Profile {
  name?: string;
  url: string;
  photo?: string;
  email?: string;
}

export type Env = Record<string, string | undefined>;

export function isDevelopment(env: Env): boolean {
  return env.CONTEXT === "dev" || env.NETLIFY_DEV === "true";
}

export function readBaseUrl(env: Env, development: boolean, problems: Found[]): string | undefined {
  const variable = env.BASE_URL ? "BASE_URL" : "URL";
  const raw = env.BASE_URL || env.URL;
  if (!raw) {
    problems.push({ variable: "BASE_URL", message: "BASE_URL is missing (and Netlify's URL is not set)" });
    return undefined;
  }
  const refused = reporter(problems, variable);
  const url = urlOf(raw);
  if (!url) return refused(`${variable} is not a URL: ${JSON.stringify(raw)}`);
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password)
    return refused(`${variable} must be an origin only, like https://auth.example.com (no path, query or fragment)`);
  if (url.protocol !== "https:" && !(development && url.protocol === "http:"))
    return refused(`${variable} must use https`);
  return url.origin;
}

export function readProfile(env: Env, me: string | undefined, problems: Found[]): Profile {
  const profile: Profile = { url: me ?? "" };
  const name = env.PROFILE_NAME?.trim();
  if (name) profile.name = name.slice(0, 200);
  for (const [variable, key] of [
    ["PROFILE_URL", "url"],
    ["PROFILE_PHOTO", "photo"],
  ] as const) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const url = urlOf(raw, me);
    if (url && (url.protocol === "https:" || url.protocol === "http:")) profile[key] = url.href;
    else problems.push({ variable, message: `${variable} must be an http(s) URL` });
  }
  const email = env.PROFILE_EMAIL?.trim();
  if (email) {
    if (/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(email)) profile.email = email;
    else problems.push({ variable: "PROFILE_EMAIL", message: "PROFILE_EMAIL is not an e-mail address" });
  }
  return profile;
}

const DURATION = /^(\d{1,9})\s*(s|m|h|d)?$/;
const UNIT_MS = { s: 1000, m: MINUTE, h: HOUR, d: DAY } as const;

/** "30d", "12h", "90m" or plain seconds. */
export function readDuration(env: Env, variable: string, fallbackMs: number, problems: Found[]): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallbackMs;
  const match = DURATION.exec(raw);
  const ms = match ? Number(match[1]) * UNIT_MS[(match[2] ?? "s") as keyof typeof UNIT_MS] : NaN;
  if (!(ms >= MINUTE && ms <= 400 * DAY)) {
    problems.push({
      variable,
      message: `${variable} must be a duration between 1 minute and 400 days, such as 30d, 12h or 3600`,
    });
    return fallbackMs;
  }
  return ms;
}

/** "on"/"off" (also true/false, yes/no, 1/0). */
export function readSwitch(env: Env, variable: string, fallback: boolean, problems: Found[]): boolean {
  const raw = env[variable]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (["on", "true", "yes", "1"].includes(raw)) return true;
  if (["off", "false", "no", "0"].includes(raw)) return false;
  problems.push({ variable, message: `${variable} must be on or off` });
  return fallback;
}

// How to mend each configuration problem, worded once: the setup page, the JSON answers, the
// build's warnings and check-config all show these (platform/config.ts adds them to problems).

/** Where the server runs, a deployment may have been set up from a clone of this repository or
 * from a blog: its setup page names both ways to make a hash. check-config and the build plugin
 * know which, and name only the command that exists there. */
const EITHER_HASH_COMMAND =
  "npm run hash-password (in this repository) or npx netlify-indieauth hash-password (in your blog)";

/** Stands for the hash-password command in FIXES. */
const HASH_COMMAND = "{hash-password}";

/** How to mend each variable: worded once, for the setup page, the JSON answers and check-config. */
const FIXES: Record<string, string> = {
  ME: "Set ME to your website's address, e.g. ME=https://jane.example/",
  SECRET: "Set SECRET to at least 32 random characters, e.g. the output of: openssl rand -base64 32",
  PASSWORD_HASH: `Make one with: ${HASH_COMMAND}, and set PASSWORD_HASH to what it prints`,
  PASSWORD_SECRET: `Use a bcrypt hash ($2a$, $2b$ or $2y$), or set PASSWORD_HASH from ${HASH_COMMAND} instead`,
  BASE_URL:
    "Set BASE_URL to this deployment's origin, e.g. BASE_URL=https://auth.jane.example (Netlify sets URL for you in its builds)",
  URL: "Set BASE_URL to this deployment's origin, e.g. BASE_URL=https://auth.jane.example",
  PROFILE_URL: "Use an http(s) URL, or leave it unset to use ME",
  PROFILE_PHOTO: "Use an http(s) URL of an image",
  PROFILE_EMAIL: "Use a plain address such as jane@jane.example, or leave it unset",
  ACCESS_TOKEN_TTL: "Use a duration such as 30d, 12h or 3600 (seconds)",
  REFRESH_TOKEN_TTL: "Use a duration such as 90d",
  INTROSPECTION_TOKEN: "Use at least 32 random characters, e.g. the output of: openssl rand -base64 32",
  PASSWORD_LOGIN: "Use on or off",
  NOTIFY_URL:
    "Use your webhook's https URL (ntfy topic, Slack, Discord or Matrix hookshot webhook, or any JSON receiver), or leave it unset",
  NOTIFY_FORMAT: "Use ntfy, slack, discord, matrix or json, or leave it unset to choose by the URL's host",
  INDIEAUTH_HOST:
    "Set INDIEAUTH_HOST to the auth host alone (e.g. auth.jane.example, a domain alias of the blog's site) and BASE_URL to https:// and that host; or leave both unset to share the blog's origin",
};

/** How to mend the variable; `hashPasswordCommand`: the command that makes a PASSWORD_HASH
 * where the fix is read (both commands when unknown). */
export function fixFor(variable: string, hashPasswordCommand?: string): string {
  return (FIXES[variable] ?? "See the README's table of environment variables").replace(
    HASH_COMMAND,
    () => hashPasswordCommand ?? EITHER_HASH_COMMAND,
  );
}

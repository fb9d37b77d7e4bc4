// `npm run check-config`: validates the environment (and .env, for local runs) the way the
// functions will, and prints each problem with its fix. Exits 1 when something is wrong.
import { loadConfig } from "../netlify/lib/platform/config.ts";
import { loadEnvFile } from "./env.ts";

const FIXES: Record<string, string> = {
  ME: "Set ME to your website's address, e.g. ME=https://jane.example/",
  SECRET: "Set SECRET to at least 32 random characters: openssl rand -base64 32",
  PASSWORD_HASH: "Run `npm run hash-password` (or, in your blog, `npx netlify-indieauth hash-password`) and set PASSWORD_HASH to what it prints",
  PASSWORD_SECRET: "Use a bcrypt hash ($2a$, $2b$ or $2y$), or set PASSWORD_HASH from `npm run hash-password` instead",
  BASE_URL: "Set BASE_URL to this deployment's origin, e.g. BASE_URL=https://auth.jane.example (Netlify sets URL for you in its builds)",
  URL: "Set BASE_URL to this deployment's origin, e.g. BASE_URL=https://auth.jane.example",
  PROFILE_URL: "Use an http(s) URL, or leave it unset to use ME",
  PROFILE_PHOTO: "Use an http(s) URL of an image",
  PROFILE_EMAIL: "Use a plain address such as jane@jane.example, or leave it unset",
  ACCESS_TOKEN_TTL: "Use a duration such as 30d, 12h or 3600 (seconds)",
  REFRESH_TOKEN_TTL: "Use a duration such as 90d",
  INTROSPECTION_TOKEN: "Use at least 32 random characters: openssl rand -base64 32",
};

const fromFile = loadEnvFile();
// A .env and no Netlify context means a local checkout: check it as `npm start` runs it.
const local = fromFile && !process.env.CONTEXT;
if (local) {
  process.env.NETLIFY_DEV = "true";
  process.env.BASE_URL ??= `http://localhost:${process.env.PORT ?? 8888}`;
  console.log("Checking as local development (.env, no CONTEXT). For production: CONTEXT=production npm run check-config\n");
}
const result = loadConfig(process.env);
if (result.ok) {
  const { config } = result;
  console.log(`Configuration is valid${fromFile ? " (with .env)" : ""}.`);
  console.log(`  you sign in as   ${config.me}`);
  console.log(`  issuer           ${config.issuer}`);
  console.log(`  password         ${config.password.kind === "scrypt" ? "scrypt hash (PASSWORD_HASH)" : "bcrypt hash (PASSWORD_SECRET)"}`);
  console.log(`  profile          ${[config.profile.name, config.profile.photo, config.profile.email].filter(Boolean).join(", ") || "(no name, photo or e-mail set)"}`);
  process.exitCode = 0;
} else {
  console.error(`${result.problems.length} problem${result.problems.length === 1 ? "" : "s"} with the configuration${fromFile ? " (environment and .env)" : ""}:`);
  for (const problem of result.problems) {
    console.error(`\n  ✗ ${problem.message}`);
    console.error(`    fix: ${FIXES[problem.variable] ?? "see the README's table of environment variables"}`);
  }
  process.exitCode = 1;
}

// `npm run check-config`: validates the environment (and .env, for local runs) the way the
// functions will, and prints each problem with its fix. Exits 1 when something is wrong.
// In a blog (`npx netlify-indieauth check-config`) it names the blog's commands.
import { loadConfig } from "../netlify/lib/platform/config.ts";
import { commandFor } from "./commands.ts";
import { loadEnvFile } from "./env.ts";

const fromFile = loadEnvFile();
// A .env and no Netlify context means a local checkout: check it as `npm start` runs it.
const local = fromFile && !process.env.CONTEXT;
if (local) {
  process.env.NETLIFY_DEV = "true";
  process.env.BASE_URL ??= `http://localhost:${process.env.PORT ?? 8888}`;
  console.log(
    `Checking as local development (.env, no CONTEXT). For production: CONTEXT=production ${commandFor("check-config")}\n`,
  );
}
// INDIEAUTH_HOST exists only for the build plugin: set, the environment is a blog's.
const result = loadConfig(process.env, process.env.INDIEAUTH_HOST?.trim() ? "plugin" : "standalone", {
  hashPasswordCommand: commandFor("hash-password"),
});
if (result.ok) {
  const { config } = result;
  console.log(`Configuration is valid${fromFile ? " (with .env)" : ""}.`);
  console.log(`  you sign in as   ${config.me}`);
  console.log(`  issuer           ${config.issuer}`);
  if (config.setup === "auth-host")
    console.log(`  auth host        ${new URL(config.baseUrl).host} (the blog's other hosts are refused)`);
  console.log(
    `  password         ${config.password.kind === "scrypt" ? "scrypt hash (PASSWORD_HASH)" : "bcrypt hash (PASSWORD_SECRET)"}`,
  );
  console.log(
    `  profile          ${[config.profile.name, config.profile.photo, config.profile.email].filter(Boolean).join(", ") || "(no name, photo or e-mail set)"}`,
  );
  console.log(
    `  alerts           ${config.notify ? `on: ${config.notify.format} messages to ${new URL(config.notify.url).host}` : "off (NOTIFY_URL is not set)"}`,
  );
  process.exitCode = 0;
} else {
  console.error(
    `${result.problems.length} problem${result.problems.length === 1 ? "" : "s"} with the configuration${fromFile ? " (environment and .env)" : ""}:`,
  );
  for (const problem of result.problems) {
    console.error(`\n  ✗ ${problem.message}`);
    console.error(`    fix: ${problem.fix}`);
  }
  process.exitCode = 1;
}

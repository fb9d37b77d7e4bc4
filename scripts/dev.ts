// `npm start`: a working local server in one command. Writes a development .env on first
// run (random SECRET, a password whose hash is stored and which is printed once), builds the
// site and runs `netlify dev` offline on http://localhost:8888 (PORT overrides).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hashPassword } from "../netlify/lib/owner/password.ts";
import { buildSite } from "./build.ts";
import { ENV_FILE, loadEnvFile } from "./env.ts";

const port = Number(process.env.PORT ?? 8888);

async function writeDevelopmentEnv(): Promise<string> {
  // Easy to type, still ~72 bits: three groups of four from an unambiguous alphabet.
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const bytes = randomBytes(12);
  const password = Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("").replace(/(.{4})(?!$)/g, "$1-");
  const lines = [
    "# Written by `npm start` for local development. Never commit this file.",
    `ME=http://localhost:${port}/`,
    `SECRET=${randomBytes(32).toString("base64url")}`,
    `PASSWORD_HASH=${await hashPassword(password)}`,
    "PROFILE_NAME=Local Developer",
    "",
  ];
  writeFileSync(ENV_FILE, lines.join("\n"), { mode: 0o600 });
  return password;
}

if (!existsSync(ENV_FILE)) {
  const password = await writeDevelopmentEnv();
  console.log(`\nWrote ${ENV_FILE} for local development.`);
  console.log(`Your development password is:  ${password}\n(It is shown only this once; delete .env to get a new one.)\n`);
}
loadEnvFile();
process.env.BASE_URL ??= `http://localhost:${port}`;
process.env.NETLIFY_DEV = "true";

const { problems } = await buildSite();
for (const problem of problems) console.warn(`warning: ${problem.message}`);

const netlify = createRequire(import.meta.url).resolve("netlify-cli/bin/run.js");
const child = spawn(
  process.execPath,
  [netlify, "dev", "--offline", "--internal-disable-edge-functions", "--port", String(port), "--no-open"],
  { stdio: "inherit", env: { ...process.env, BROWSER: "none" } },
);
child.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));

#!/usr/bin/env node
// The package's command, for a blog that installed it: `npx netlify-indieauth <command>`.
//   hash-password   print the PASSWORD_HASH for a password (asks twice on a terminal; otherwise
//                   reads it from standard input and prints only the hash)
//   check-config    check the environment (and ./.env) the way the functions will
//   dev [--port N]  the local trial: build the blog with the plugin and serve it with the
//                   functions (netlify serve, offline, on 127.0.0.1 unless --host ADDRESS), then
//                   print a sign-in for that port
// hash-password and check-config run the same TypeScript scripts as `npm run <command>` in a clone
// of this repository; NETLIFY_INDIEAUTH_CLI tells them to name the blog's commands (npx …).
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

const scripts = dirname(fileURLToPath(import.meta.url));
const COMMANDS = {
  "hash-password": "hash-password.ts",
  "check-config": "check-config.ts",
  dev: "blog-dev.ts",
};

const [command, ...rest] = process.argv.slice(2);
const script = COMMANDS[command ?? ""];
if (!script) {
  const out =
    command === undefined || command === "help" || command === "--help" || command === "-h"
      ? process.stdout
      : process.stderr;
  out.write(
    [
      "Usage: npx netlify-indieauth <command>",
      "",
      "  hash-password   print the PASSWORD_HASH for a password (asks twice without echo;",
      '                  `printf %s "$PW" | npx netlify-indieauth hash-password` prints only the hash)',
      "  check-config    check ME, SECRET, PASSWORD_HASH... (and ./.env) the way the functions will",
      "  dev [--port N]  try it locally: build the blog with the plugin and serve it on http://localhost:N/",
      "                  (8888 unless told; needs netlify-cli: npm install --save-dev netlify-cli@26);",
      "                  this machine only, unless --host 0.0.0.0 (or another address) opens it to the network",
      "",
    ].join("\n"),
  );
  process.exit(out === process.stdout ? 0 : 2);
}
process.argv = [process.argv[0], join(scripts, script), ...rest];
process.env.NETLIFY_INDIEAUTH_CLI = "1";
register();
await import(pathToFileURL(join(scripts, script)).href);

#!/usr/bin/env node
// The package's command, for a blog that installed it: `npx netlify-indieauth <command>`.
//   hash-password   print the PASSWORD_HASH for a password (asks twice on a terminal; otherwise
//                   reads it from standard input and prints only the hash)
//   check-config    check the environment (and ./.env) the way the functions will
// Each runs the same TypeScript script as `npm run <command>` in a clone of this repository.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { register } from "tsx/esm/api";

const scripts = dirname(fileURLToPath(import.meta.url));
const COMMANDS = {
  "hash-password": "hash-password.ts",
  "check-config": "check-config.ts",
};

const [command, ...rest] = process.argv.slice(2);
const script = COMMANDS[command ?? ""];
if (!script) {
  const out = command === undefined || command === "help" || command === "--help" || command === "-h" ? process.stdout : process.stderr;
  out.write(
    [
      "Usage: npx netlify-indieauth <command>",
      "",
      "  hash-password   print the PASSWORD_HASH for a password (asks twice without echo;",
      "                  `printf %s \"$PW\" | npx netlify-indieauth hash-password` prints only the hash)",
      "  check-config    check ME, SECRET, PASSWORD_HASH... (and ./.env) the way the functions will",
      "",
    ].join("\n"),
  );
  process.exit(out === process.stdout ? 0 : 2);
}
process.argv = [process.argv[0], join(scripts, script), ...rest];
register();
await import(pathToFileURL(join(scripts, script)).href);

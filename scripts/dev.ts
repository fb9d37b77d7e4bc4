// `npm start`: a working local server in one command. Checks the port first (a start that
// fails changes nothing), writes a development .env on first run (random SECRET, a password
// whose hash is stored and which is printed once), and runs `netlify dev` offline on
// http://localhost:8888 (PORT overrides), saying in its own words what runs where, keeping
// netlify-cli's routine noise out of the way, and printing a sign-in by hand for its own port.
// It listens on this machine only (127.0.0.1) unless told: `npm start -- --host 0.0.0.0`.
// Each port has a folder of its own, .netlify/indieauth-dev/<port>/: the pages, the functions,
// and netlify-cli's working folder (its functions-serve/ and the local Blobs store), so two
// servers from one checkout never rebuild or read each other's files.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { hashPassword } from "../netlify/lib/owner/password.ts";
import { buildFunctions } from "./build-functions.ts";
import { buildSite } from "./build.ts";
import { ENV_FILE, loadEnvFile } from "./env.ts";
import { readyMessage } from "./local-sign-in.ts";
import { innerPorts, listeningNote, listenOn, LOOPBACK, parseHost, parsePort, portIsFree } from "./ports.ts";

const port = parsePort(process.env.PORT ?? "8888") ?? 0;
if (port === 0) {
  console.error(
    `PORT=${process.env.PORT} is not a port number (1-65535). Nothing was changed. For example: PORT=9000 npm start`,
  );
  process.exit(2);
}
/** `--host ADDRESS` (npm start -- --host 0.0.0.0): where to listen; this machine only unless told. */
function hostArgument(argv: readonly string[]): string | undefined {
  if (argv.length === 0) return LOOPBACK;
  const raw =
    argv[0] === "--host" && argv.length === 2
      ? argv[1]
      : argv.length === 1 && argv[0]!.startsWith("--host=")
        ? argv[0]!.slice("--host=".length)
        : undefined;
  return parseHost(raw);
}
const host = hostArgument(process.argv.slice(2));
if (host === undefined) {
  console.error(
    `Usage: npm start [-- --host ADDRESS]: ${JSON.stringify(process.argv.slice(2).join(" "))} is not an IP address to listen on. Nothing was changed.`,
  );
  process.exit(2);
}
const root = resolve(import.meta.dirname, "..");
/** The first line of a .env that `npm start` wrote (and so may adapt to another port). */
const WRITTEN_BY_US = "# Written by `npm start` for local development. Never commit this file.";

async function writeDevelopmentEnv(): Promise<string> {
  // Easy to type, still ~72 bits: three groups of four from an unambiguous alphabet.
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const bytes = randomBytes(12);
  const password = Array.from(bytes, (b) => alphabet[b % alphabet.length])
    .join("")
    .replace(/(.{4})(?!$)/g, "$1-");
  const lines = [
    WRITTEN_BY_US,
    `ME=http://localhost:${port}/`,
    `SECRET=${randomBytes(32).toString("base64url")}`,
    `PASSWORD_HASH=${await hashPassword(password)}`,
    "PROFILE_NAME=Local Developer",
    "",
  ];
  writeFileSync(ENV_FILE, lines.join("\n"), { mode: 0o600 });
  return password;
}

/** netlify-cli lines that read like faults but are not: the variables it leaves to us, and
 * the edge functions this project does not use. */
const NOISE = [/Ignored .* env var/, /Edge functions are disabled/, /^\s*[╭╰│]/, /Loaded function /, /^\s*$/];

function relay(stream: NodeJS.ReadableStream, to: NodeJS.WriteStream, onReady: () => void): void {
  let pending = "";
  stream.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.includes("Local dev server ready")) onReady();
      else if (!NOISE.some((noise) => noise.test(line))) to.write(`${line}\n`);
    }
  });
}

if (!(await portIsFree(port))) {
  console.error(`Port ${port} is busy: another server (perhaps another npm start) listens there. Nothing was changed.`);
  console.error(`Stop it, or start on another port: PORT=${port + 1} npm start`);
  process.exit(1);
}

const fromEnvironment = new Set(Object.keys(process.env));
let passwordSource = fromEnvironment.has("PASSWORD_HASH")
  ? "PASSWORD_HASH from your environment"
  : "PASSWORD_HASH in .env (the password npm start printed when it wrote .env)";
if (!existsSync(ENV_FILE)) {
  const password = await writeDevelopmentEnv();
  console.log(`\nWrote ${ENV_FILE} for local development.`);
  console.log(
    `Your development password is:  ${password}\n(It is shown only this once; delete .env to get a new one.)\n`,
  );
  passwordSource = "the development password above";
}
loadEnvFile();
// A .env that npm start wrote for another port: locally, your profile is this server's own page.
const ownMe = `http://localhost:${port}/`;
const writtenByUs = readFileSync(ENV_FILE, "utf8").startsWith(WRITTEN_BY_US);
if (
  writtenByUs &&
  !fromEnvironment.has("ME") &&
  /^http:\/\/localhost:\d+\/$/.test(process.env.ME ?? "") &&
  process.env.ME !== ownMe
) {
  console.log(`.env has ME=${process.env.ME}, written for another port; this run uses ME=${ownMe}.`);
  process.env.ME = ownMe;
}
process.env.BASE_URL ??= `http://localhost:${port}`;
process.env.NETLIFY_DEV = "true";

// This port's own folder: netlify-cli runs there (with a copy of netlify.toml for the routes and
// headers), so its .netlify/functions-serve/ and .netlify/blobs-serve/ are this server's alone.
const workDir = join(process.cwd(), ".netlify", "indieauth-dev", String(port));
const pages = join(workDir, "pages");
// The functions as they deploy (prebuilt).
const functions = join(workDir, "functions");
mkdirSync(workDir, { recursive: true });
copyFileSync(join(root, "netlify.toml"), join(workDir, "netlify.toml"));
const { problems, notes } = await buildSite(process.env, pages);
await buildFunctions(functions);
for (const note of notes) console.log(note);
for (const problem of problems) console.warn(`warning: ${problem.message}. ${problem.fix}.`);

const facts: [string, string][] = [
  ["address", `${process.env.BASE_URL}/`],
  ["you sign in as", process.env.ME ?? "(ME is not set)"],
  ["password", passwordSource],
  ["pages", relative(process.cwd(), pages) || pages],
  // Built once at start, as they deploy: a change to their sources needs a new npm start.
  ["functions", relative(process.cwd(), functions) || functions],
];
console.log("IndieAuth server, local development");
for (const [label, value] of facts) console.log(`  ${label.padEnd(15)} ${value}`);
console.log(`Starting netlify dev (offline)…`);

const [functionsPort, staticPort] = await innerPorts(port);
const netlify = createRequire(import.meta.url).resolve("netlify-cli/bin/run.js");
const args = [
  "dev",
  "--offline",
  "--internal-disable-edge-functions",
  "--no-open",
  "--port",
  String(port),
  "--functions-port",
  String(functionsPort),
  "--staticServerPort",
  String(staticPort),
  "--dir",
  pages,
  "--functions",
  functions,
];
const listen = listenOn(host);
const child = spawn(process.execPath, [...listen.nodeArgs, netlify, ...args], {
  cwd: workDir,
  stdio: ["inherit", "pipe", "pipe"],
  env: { ...process.env, ...listen.env, BROWSER: "none" },
});
const ready = () =>
  console.log(
    readyMessage(process.env.BASE_URL ?? `http://localhost:${port}`, listeningNote(host, "npm start -- --host")),
  );
relay(child.stdout, process.stdout, ready);
relay(child.stderr, process.stderr, ready);
child.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));

// `npx netlify-indieauth dev [--port N] [--host ADDRESS]`: the local trial in a blog, in one
// command. Checks the port and the publish folder before anything is built, then runs
// netlify-cli's `netlify serve` in the blog's folder with the flags it needs here
// (scripts/blog-dev-plan.ts), listening on this machine only unless told (scripts/listen-host.mjs),
// with the run's addresses handed to the build plugin too (scripts/dev-addresses.ts) and its output
// less what is harmless here (scripts/serve-output.ts), and prints the sign-in by hand for this
// port once the server answers. netlify-cli is the blog's
// own (npm install --save-dev netlify-cli@26).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { join, relative, resolve } from "node:path";
import { parseEnv } from "node:util";
import { parse } from "smol-toml";
import { localAddresses, parseDevArguments, serveArguments } from "./blog-dev-plan.ts";
import { DEV_ADDRESSES_VARIABLE, devAddressesValue } from "./dev-addresses.ts";
import { committableEnvFiles, envNotIgnored } from "./env-ignored.ts";
import { readyMessage } from "./local-sign-in.ts";
import { innerPorts, listeningNote, listenOn, LOOPBACK, portIsFree } from "./ports.ts";
import { checkPublishFolder, describeCheck } from "./publish-check.ts";
import { pipeFiltered } from "./serve-output.ts";

const blog = process.cwd();

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

interface NetlifyToml {
  build?: { base?: unknown; publish?: unknown };
  plugins?: { package?: unknown }[];
}

function netlifyToml(): NetlifyToml | undefined {
  const file = join(blog, "netlify.toml");
  if (!existsSync(file)) return undefined;
  try {
    return parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** The publish folder netlify-cli will serve: [build] publish, under [build] base; the site's
 * own folder when neither is set, as on Netlify. */
function publishFolder(toml: NetlifyToml | undefined): string {
  const part = (value: unknown) => (typeof value === "string" ? value : "");
  return resolve(blog, part(toml?.build?.base), part(toml?.build?.publish));
}

function netlifyCli(): string | undefined {
  try {
    return createRequire(join(blog, "package.json")).resolve("netlify-cli/bin/run.js");
  } catch {
    return undefined;
  }
}

const parsed = parseDevArguments(process.argv.slice(2), process.env);
if ("error" in parsed) fail(parsed.error, 2);
const { port, host } = parsed;

if (!(await portIsFree(port))) {
  fail(
    `Port ${port} is busy: another server listens there. Nothing was built.\nStop it, or use another port: npx netlify-indieauth dev --port ${port + 1}`,
  );
}
const toml = netlifyToml();
if (!(toml?.plugins ?? []).some((plugin) => plugin.package === "netlify-indieauth")) {
  fail(
    'This folder\'s netlify.toml does not load the plugin, so the build would not add the server. Add to netlify.toml:\n\n[[plugins]]\n  package = "netlify-indieauth"',
  );
}
const dotEnv = existsSync(join(blog, ".env")) ? parseEnv(readFileSync(join(blog, ".env"), "utf8")) : {};
const committable = committableEnvFiles(blog);
if (committable.length > 0) console.warn(`${envNotIgnored(committable)}\n`);
// The publish folder as it is before the build (a plain folder of HTML is served as it is); the
// plugin checks it again after the build command.
const publish = publishFolder(toml);
if (existsSync(publish)) {
  const shown = relative(blog, publish) || ".";
  const check = describeCheck(await checkPublishFolder(blog, publish, { ...dotEnv, ...process.env }), shown, blog);
  if (check.warning) console.warn(`Warning: ${check.warning}\n`);
  if (check.refusal) fail(`Nothing was built or served: ${check.refusal}`);
}
const cli = netlifyCli();
if (!cli)
  fail(
    "netlify-cli is not installed in this folder. Install it beside the package:\n  npm install --save-dev netlify-cli@26",
  );

const { env, notes, error } = localAddresses(port, dotEnv as Record<string, string>, process.env);
if (error) fail(`Nothing was built: ${error}`, 2);
for (const note of notes) console.log(note);

const [staticPort, functionsPort] = await innerPorts(port);
const blogBase = `http://localhost:${port}`;
/** The server's own address: the blog's, or its auth host's (INDIEAUTH_HOST, e.g. auth.localhost). */
const base = (process.env.BASE_URL ?? env.BASE_URL ?? blogBase).replace(/\/$/, "");
console.log(
  `Building the blog and the IndieAuth server, then serving them on ${blogBase}/ (netlify serve, offline)…\n`,
);
const listen = listenOn(host);
// netlify-cli's output goes through a filter (scripts/serve-output.ts), in colour on a terminal.
const colour =
  process.stdout.isTTY && process.env.FORCE_COLOR === undefined && process.env.NO_COLOR === undefined
    ? { FORCE_COLOR: "1" }
    : {};
const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, ...listen.env, ...colour, BROWSER: "none" };
// The functions see these before .env's values; the build plugin takes them from this variable.
childEnv[DEV_ADDRESSES_VARIABLE] = devAddressesValue({
  ME: childEnv.ME ?? dotEnv.ME,
  BASE_URL: childEnv.BASE_URL ?? dotEnv.BASE_URL,
});
const child = spawn(
  process.execPath,
  [...listen.nodeArgs, cli, ...serveArguments({ port, staticPort, functionsPort })],
  {
    cwd: blog,
    stdio: ["inherit", "pipe", "pipe"],
    env: childEnv,
  },
);
pipeFiltered(child.stdout, process.stdout);
pipeFiltered(child.stderr, process.stderr);
// Its exit code, once its output has been passed on (or a moment after it ended, should a
// process it started hold the output open).
const exitLike = (code: number | null, signal: NodeJS.Signals | null) => process.exit(code ?? (signal ? 1 : 0));
child.on("close", exitLike);
child.on("exit", (code, signal) => setTimeout(() => exitLike(code, signal), 2000));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));

/** Whether the server's metadata answers, asked where it listens, naming the server's host (an
 * auth host such as auth.localhost need not resolve here). */
function answers(): Promise<boolean> {
  const address = host === "0.0.0.0" || host === "::" ? LOOPBACK : host;
  return new Promise((done) => {
    const asked = request(
      {
        host: address,
        port,
        path: "/.well-known/oauth-authorization-server",
        headers: { Host: new URL(base).host },
        timeout: 5000,
      },
      (res) => {
        res.resume();
        done(res.statusCode === 200);
      },
    );
    asked.on("error", () => done(false));
    asked.on("timeout", () => asked.destroy());
    asked.end();
  });
}

// Ready when the server's metadata answers (netlify serve first runs the whole build).
while (child.exitCode === null) {
  if (await answers()) {
    console.log(readyMessage(base, listeningNote(host, "npx netlify-indieauth dev --host")));
    console.log(`Your blog: ${blogBase}/   The server's home page: ${base}/indieauth/\n`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}

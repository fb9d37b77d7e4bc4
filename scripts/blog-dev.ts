// `npx netlify-indieauth dev [--port N]`: the local trial in a blog, in one command. Checks the
// port before anything is built, then runs netlify-cli's `netlify serve` in the blog's folder with
// the flags it needs here (scripts/blog-dev-plan.ts), and prints the sign-in by hand for this
// port once the server answers. netlify-cli is the blog's own (npm install --save-dev netlify-cli@26).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { parse } from "smol-toml";
import { localAddresses, parseDevArguments, serveArguments } from "./blog-dev-plan.ts";
import { readyMessage } from "./local-sign-in.ts";
import { innerPorts, portIsFree } from "./ports.ts";

const blog = process.cwd();

function fail(message: string, code = 1): never {
  console.error(message);
  process.exit(code);
}

function loadsThePlugin(): boolean {
  const file = join(blog, "netlify.toml");
  if (!existsSync(file)) return false;
  try {
    const plugins = (parse(readFileSync(file, "utf8")) as { plugins?: { package?: unknown }[] }).plugins ?? [];
    return plugins.some((plugin) => plugin.package === "netlify-indieauth");
  } catch {
    return false;
  }
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
const { port } = parsed;

if (!(await portIsFree(port))) {
  fail(`Port ${port} is busy: another server listens there. Nothing was built.\nStop it, or use another port: npx netlify-indieauth dev --port ${port + 1}`);
}
if (!loadsThePlugin()) {
  fail('This folder\'s netlify.toml does not load the plugin, so the build would not add the server. Add to netlify.toml:\n\n[[plugins]]\n  package = "netlify-indieauth"');
}
const cli = netlifyCli();
if (!cli) fail("netlify-cli is not installed in this folder. Install it beside the package:\n  npm install --save-dev netlify-cli@26");

const dotEnv = existsSync(join(blog, ".env")) ? parseEnv(readFileSync(join(blog, ".env"), "utf8")) : {};
const { env, notes } = localAddresses(port, dotEnv as Record<string, string>, process.env);
for (const note of notes) console.log(note);

const [staticPort, functionsPort] = await innerPorts(port);
const base = `http://localhost:${port}`;
console.log(`Building the blog and the IndieAuth server, then serving them on ${base}/ (netlify serve, offline)…\n`);
const child = spawn(process.execPath, [cli, ...serveArguments({ port, staticPort, functionsPort })], {
  cwd: blog,
  stdio: "inherit",
  env: { ...process.env, ...env, BROWSER: "none" },
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));

// Ready when the server's metadata answers (netlify serve first runs the whole build).
while (child.exitCode === null) {
  const answered = await fetch(`${base}/.well-known/oauth-authorization-server`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status === 200, () => false);
  if (answered) {
    console.log(readyMessage(base));
    console.log(`Your blog: ${base}/   The server's home page: ${base}/indieauth/\n`);
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}

// Starts the real `netlify dev` (offline, edge functions off) on free ports, with the site
// built into a temporary folder and the functions prebuilt as they deploy, and stops it again. Readiness is waited for by polling the
// metadata endpoint, never by sleeping a fixed time. Each server runs in a working folder of its
// own (a copy of netlify.toml beside its site), so that servers started side by side (vitest runs
// files in parallel) never share netlify-cli's .netlify/functions-serve/ or Blobs sandbox.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { copyFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { parse, stringify } from "smol-toml";
import type { Env } from "../../netlify/lib/platform/config.ts";
import type { Build } from "../../netlify/lib/platform/setup.ts";
import { buildSite } from "../../scripts/build.ts";
import { cachedFunctions } from "./built-functions.ts";
import { testEnv } from "./env.ts";
import { stopProcessGroup } from "./process-group.ts";

const repoRoot = new URL("../..", import.meta.url).pathname;

export interface NetlifyDev {
  baseUrl: string;
  /** netlify-cli's working folder for this server (its .netlify/ is there). */
  workDir: string;
  env: Env;
  output: () => string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Every variable the server reads, so that a developer's own .env cannot leak into a test. */
const ALL_VARIABLES = [
  "ME",
  "SECRET",
  "PASSWORD_HASH",
  "PASSWORD_SECRET",
  "PROFILE_NAME",
  "PROFILE_PHOTO",
  "PROFILE_EMAIL",
  "PROFILE_URL",
  "BASE_URL",
  "ACCESS_TOKEN_TTL",
  "REFRESH_TOKEN_TTL",
  "INTROSPECTION_TOKEN",
  "PASSWORD_LOGIN",
  "INDIEAUTH_STORE",
  "INDIEAUTH_HOST",
  "NOTIFY_URL",
  "NOTIFY_FORMAT",
];

async function waitUntilReady(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`netlify dev exited early:\n${output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`netlify dev did not answer ${url} within ${timeoutMs} ms:\n${output()}`);
}

/** The functions as they deploy (prebuilt by scripts/build-functions.ts), built once per content
 * of their sources (test/helpers/built-functions.ts) and shared by every server: they do not
 * depend on the environment. */
function builtFunctions(built: Build = "standalone"): Promise<string> {
  return cachedFunctions(built);
}

export interface NetlifyDevOptions {
  /** Added to a blog as the build plugin adds it, sharing the blog's origin: the functions built
   * as the plugin builds them, the pages under /indieauth/ with the plugin's _headers block, and a
   * page of the blog at /blog/ (without any of the server's headers); the project's netlify.toml
   * has the package's routes and nothing of its headers. */
  blog?: boolean;
  /** Adds functions of the caller's own beside the server's (the bench's floor function):
   * called with a copy of the built functions' folder, to write more into. */
  moreFunctions?: (folder: string) => Promise<void>;
}

const BLOG_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Jane's blog</title></head>
<body><h1>Jane's blog</h1><p>A post, and the scripts of a theme, a comments widget and an analytics snippet.</p></body></html>
`;

/** The blog's project folder (netlify.toml with the package's routes) and its publish folder's extras. */
async function asBlog(project: string, site: string): Promise<void> {
  const repoToml = parse(await readFile(new URL("../../netlify.toml", import.meta.url), "utf8"));
  await writeFile(join(project, "netlify.toml"), stringify({ redirects: repoToml.redirects }));
  const headers = (await import(new URL("../../netlify/plugin/headers.mjs", import.meta.url).href)) as {
    pageHeaderRules: (toml: unknown) => unknown[];
    withOurHeaders: (existing: string, rules: unknown[]) => string;
  };
  await writeFile(join(site, "_headers"), headers.withOurHeaders("", headers.pageHeaderRules(repoToml)));
  await mkdir(join(site, "blog"), { recursive: true });
  await writeFile(join(site, "blog", "index.html"), BLOG_PAGE);
}

export async function startNetlifyDev(overrides: Env = {}, options: NetlifyDevOptions = {}): Promise<NetlifyDev> {
  const [port, functionsPort, staticPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const baseUrl = `http://localhost:${port}`;
  // A store of its own, so that servers started by different test files share no state.
  const env: Env = {
    ...(await testEnv({ BASE_URL: baseUrl })),
    NETLIFY_DEV: "true",
    INDIEAUTH_STORE: `test-${randomUUID()}`,
    ...overrides,
  };
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) childEnv[key] = value;
  for (const name of ALL_VARIABLES) childEnv[name] = env[name] ?? "";
  delete childEnv.NETLIFY_BLOBS_CONTEXT;

  const dir = await mkdtemp(join(tmpdir(), "indieauth-site-"));
  const site = join(dir, "site");
  await buildSite(env, site, { standalone: !options.blog });
  if (options.blog) await asBlog(dir, site);
  else await copyFile(join(repoRoot, "netlify.toml"), join(dir, "netlify.toml"));
  const built = await builtFunctions(options.blog ? "plugin" : "standalone");
  let functions = built;
  if (options.moreFunctions) {
    functions = join(dir, "functions");
    await cp(built, functions, { recursive: true });
    await options.moreFunctions(functions);
  }

  const cli = createRequire(import.meta.url).resolve("netlify-cli/bin/run.js");
  const child = spawn(
    process.execPath,
    [
      cli,
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
      site,
      "--functions",
      functions,
    ],
    { cwd: dir, env: { ...childEnv, BROWSER: "none" }, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const output = () => log;

  const stop = async () => {
    await stopProcessGroup(child);
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitUntilReady(`${baseUrl}/.well-known/oauth-authorization-server`, child, output, 90_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, workDir: dir, env, output, stop };
}

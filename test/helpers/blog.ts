// A blog that installs this package the way npm does: `npm pack` of this checkout, then
// `npm install <tarball>` in a temporary copy of a fixture blog (the package's dependencies come
// from the npm registry, or npm's cache after `npm ci`). Whatever the `files` list in
// package.json leaves out is missing there, so a build that needs it fails.
//
// The blog's tools are this checkout's own pinned copies, linked into the blog's node_modules as
// if the blog had installed them: netlify-cli (a thousand packages, which npm would otherwise
// install for every test) and Eleventy (so the lockfile pins the generator the tests build with).
import { spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

export const repo = new URL("../..", import.meta.url).pathname;
export const fixtures = new URL("../fixtures/", import.meta.url).pathname;
const made: string[] = [];

/** Every variable the server reads, so that the developer's own environment cannot leak in. */
const SERVER_VARIABLES = [
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
  "URL",
  "CONTEXT",
  "NETLIFY_DEV",
  "NETLIFY_BLOBS_CONTEXT",
];

/** The environment a command in the blog gets: this process's, less the server's variables
 * and vitest's, plus `env`. */
export function blogEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || SERVER_VARIABLES.includes(key) || key.startsWith("VITEST") || key === "NODE_OPTIONS")
      continue;
    clean[key] = value;
  }
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  return clean;
}

function run(command: string, args: string[], cwd: string, timeout = 180_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: blogEnv(), encoding: "utf8", input: "", timeout });
}

let tarball: string | undefined;

/** `npm pack` of this checkout into `dir`; the tarball's path. */
export function packInto(dir: string): string {
  const result = run("npm", ["pack", "--json", "--pack-destination", dir], repo);
  if (result.status !== 0) throw new Error(`npm pack failed:\n${result.stderr}`);
  const [info] = JSON.parse(result.stdout) as { filename: string }[];
  return join(dir, info!.filename);
}

/** `npm pack` of this checkout: the run's own (test/helpers/pack-global-setup.ts packs once for
 * the blog suite, INDIEAUTH_TEST_TARBALL), else once per test file. */
export function packedTarball(): string {
  tarball ??= process.env.INDIEAUTH_TEST_TARBALL || packInto(tempDir("indieauth-pack-"));
  return tarball;
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder these helpers made (unless KEEP_FIXTURES is set, to look at them). */
export function removeTempDirs(): void {
  if (process.env.KEEP_FIXTURES) return;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function link(blog: string, name: string, bins: Record<string, string> = {}): void {
  const target = join(blog, "node_modules", name);
  mkdirSync(join(target, ".."), { recursive: true });
  if (!existsSync(target)) symlinkSync(join(repo, "node_modules", name), target, "dir");
  mkdirSync(join(blog, "node_modules", ".bin"), { recursive: true });
  for (const [bin, file] of Object.entries(bins)) {
    const binPath = join(blog, "node_modules", ".bin", bin);
    if (!existsSync(binPath)) symlinkSync(join("..", name, file), binPath);
  }
}

/** A copy of test/fixtures/<fixture> with the packed package installed in it by npm, and
 * netlify-cli and Eleventy linked in. `tarballFolder`: the tarball is copied into that folder of
 * the blog first and installed from there, as the README says (package.json then says
 * `file:<folder>/…`, which a Netlify build of the blog's repository finds). */
export function installBlog(fixture: string, options: { tarballFolder?: string } = {}): string {
  const dir = tempDir(`indieauth-${fixture}-`);
  cpSync(join(fixtures, fixture), dir, { recursive: true });
  let tarball = packedTarball();
  if (options.tarballFolder) {
    mkdirSync(join(dir, options.tarballFolder), { recursive: true });
    const kept = `./${options.tarballFolder}/${basename(tarball)}`;
    copyFileSync(tarball, join(dir, kept));
    tarball = kept;
  }
  const result = run("npm", ["install", "--save-dev", "--prefer-offline", "--no-audit", "--no-fund", tarball], dir);
  if (result.status !== 0)
    throw new Error(`npm install of the packed package failed:\n${result.stdout}\n${result.stderr}`);
  link(dir, "netlify-cli", { netlify: "bin/run.js" });
  link(dir, "@11ty/eleventy", { eleventy: "cmd.cjs" });
  return dir;
}

/** `netlify build --offline` in the blog, with exactly `env` (and PATH, HOME). */
export function netlifyBuild(dir: string, env: Record<string, string | undefined>): SpawnSyncReturns<string> {
  const cli = join(dir, "node_modules", "netlify-cli", "bin", "run.js");
  return spawnSync(process.execPath, [cli, "build", "--offline"], {
    cwd: dir,
    env: blogEnv(env),
    encoding: "utf8",
    input: "",
    timeout: 300_000,
  });
}

/** Runs a command in the blog through a shell, as a person would type it. */
export function shell(
  dir: string,
  command: string,
  env: Record<string, string | undefined> = {},
  input = "",
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd: dir, env: blogEnv(env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Every file under `dir`, as paths relative to it. */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const path = join(sub, name);
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else out.push(path);
    }
  };
  walk("");
  return out.sort();
}

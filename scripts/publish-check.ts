// What a blog's publish folder must not hold, checked by the build plugin after the blog's build
// command and by `npx netlify-indieauth dev` before it builds: everything in that folder is served
// (locally by netlify serve, dotfiles included). A folder that is the site's own, or that holds
// .env, a git repository or a file with the server's secret in it, stops the build, naming each;
// the project's package files, netlify.toml, node_modules and function sources get a warning that
// names the generator's setting that keeps them out.
import { createReadStream, existsSync } from "node:fs";
import { lstat, open, readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";

export interface PublishCheck {
  /** Each names a file or folder and why it must not be served; any of them stops the build. */
  refusals: string[];
  /** Each names a file or folder that had better not be served. */
  warnings: string[];
}

/** The variables whose values no served file may hold. */
const SECRET_VARIABLES = ["SECRET", "PASSWORD_HASH", "PASSWORD_SECRET", "INTROSPECTION_TOKEN"];
/** A value this short could turn up by chance (the configuration refuses short secrets anyway). */
const MIN_SECRET_LENGTH = 16;
/** Files up to this size are read whole; larger ones in pieces of this size. */
const WHOLE_FILE = 1024 * 1024;
/** Binary files over this size are not read (videos, audio); text files are read whatever their
 * size, and so are smaller binary files (an uncompressed archive of the site holds .env as text). */
const LARGE_BINARY = 16 * 1024 * 1024;
/** How much of a large file decides whether it is binary (a NUL byte there). */
const SNIFF = 8192;

const ENV_FILE = /^\.env(\.(?!example$|sample$|template$|dist$)[\w.-]+)?$/;
const PROJECT_FILES = new Set([
  "package.json",
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lock",
  "bun.lockb",
  "netlify.toml",
]);

export function secretValues(env: NodeJS.ProcessEnv): { name: string; value: Buffer }[] {
  return SECRET_VARIABLES.flatMap((name) => {
    const value = env[name]?.trim();
    return value && value.length >= MIN_SECRET_LENGTH ? [{ name, value: Buffer.from(value) }] : [];
  });
}

/** Which of `needles` `file` holds: small files read whole, larger ones in pieces that overlap
 * (so none is missed at a boundary), large binary files not at all. */
async function holds(file: string, size: number, needles: readonly Buffer[]): Promise<Buffer[]> {
  if (size <= WHOLE_FILE) {
    const bytes = await readFile(file);
    return needles.filter((needle) => bytes.includes(needle));
  }
  if (size > LARGE_BINARY) {
    const handle = await open(file, "r");
    const head = Buffer.alloc(SNIFF);
    try {
      await handle.read(head, 0, SNIFF, 0);
    } finally {
      await handle.close();
    }
    if (head.includes(0)) return [];
  }
  const overlap = Math.max(...needles.map((needle) => needle.length)) - 1;
  const found = new Set<Buffer>();
  let tail = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: WHOLE_FILE })) {
    const window = Buffer.concat([tail, chunk as Buffer]);
    for (const needle of needles) if (window.includes(needle)) found.add(needle);
    tail = window.subarray(Math.max(0, window.length - overlap));
  }
  return [...found];
}

/** The setting that keeps files out of the publish folder, for the generator the site uses. */
export function excludeHint(siteRoot: string): string {
  const has = (...names: string[]) => names.some((name) => existsSync(join(siteRoot, name)));
  if (has("_config.yml", "_config.yaml", "_config.toml")) return "list them under `exclude:` in _config.yml (Jekyll)";
  if (has("hugo.toml", "hugo.yaml", "hugo.json"))
    return "move them out of static/ (Hugo copies static/ as it is), or list them in `ignoreFiles` in hugo.toml";
  if (has(".eleventy.js", "eleventy.config.js", "eleventy.config.mjs", "eleventy.config.cjs", ".eleventyignore"))
    return "list them in .eleventyignore, and out of any addPassthroughCopy (Eleventy)";
  if (has("astro.config.mjs", "astro.config.ts", "astro.config.js"))
    return "move them out of public/ (Astro copies public/ as it is)";
  return "Jekyll's `exclude:` in _config.yml, Hugo's static/ folder or `ignoreFiles`, Eleventy's .eleventyignore, Astro's public/ folder; for a plain folder of HTML, move them out of it";
}

/** What the publish folder must not serve, and what it had better not. */
export async function checkPublishFolder(
  siteRoot: string,
  publishDir: string,
  env: NodeJS.ProcessEnv,
): Promise<PublishCheck> {
  const refusals: string[] = [];
  const warnings: string[] = [];
  const root = await realpath(siteRoot);
  const publish = await realpath(publishDir);
  if (publish === root || !relative(publish, root).startsWith("..")) {
    refusals.push(
      `the publish folder is the site's own folder${publish === root ? "" : " or one above it"}: its .env, .git, node_modules and everything else would be served. Publish a folder of its own instead (e.g. [build] publish = "public", with the pages in it)`,
    );
    return { refusals, warnings };
  }
  const secrets = secretValues(env);
  const shown = (path: string) => relative(publishDir, path).split(sep).join("/");

  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const name = shown(path);
      if (entry.name === ".git") refusals.push(`${name}: a git repository (its config and whole history)`);
      else if (ENV_FILE.test(entry.name))
        refusals.push(`${name}: an environment file (the server's SECRET and PASSWORD_HASH live in one)`);
      else if (entry.isDirectory()) {
        if (entry.name === "node_modules") warnings.push(`${name}/: installed packages, this one's sources among them`);
        else if (entry.name === ".netlify")
          warnings.push(`${name}/: netlify-cli's working folder (built functions, the local store)`);
        else {
          if (
            entry.name === "netlify" &&
            (existsSync(join(path, "functions")) || existsSync(join(path, "edge-functions")))
          )
            warnings.push(`${name}/: the site's function sources`);
          await walk(path);
        }
      } else if (entry.isSymbolicLink()) await checkLink(path, name);
      else if (entry.isFile()) await checkFile(path, name, entry.name);
    }
  };
  const checkLink = async (path: string, name: string): Promise<void> => {
    const target = await realpath(path).catch(() => undefined);
    if (target === undefined) return;
    if ((await stat(target)).isDirectory()) {
      if (target === root || !relative(target, root).startsWith(".."))
        refusals.push(`${name}: a link to the site's own folder (everything in it would be served)`);
    } else await checkFile(path, name, name.split("/").pop()!);
  };
  const checkFile = async (path: string, name: string, base: string): Promise<void> => {
    if (PROJECT_FILES.has(base)) warnings.push(`${name}: a project file`);
    if (secrets.length === 0) return;
    const found = await holds(
      path,
      (await stat(path)).size,
      secrets.map((s) => s.value),
    );
    const names = secrets.filter((s) => found.includes(s.value)).map((s) => s.name);
    if (names.length > 0) refusals.push(`${name}: holds the value of ${names.join(" and ")}`);
  };

  if ((await lstat(publishDir)).isDirectory()) await walk(publishDir);
  return { refusals, warnings };
}

/** The build's words for a check's outcome: the refusal (undefined when there is none) and the warning. */
export function describeCheck(
  check: PublishCheck,
  shownPublish: string,
  siteRoot: string,
): { refusal?: string; warning?: string } {
  const list = (items: readonly string[]) => items.map((item) => `\n  - ${item}`).join("");
  return {
    ...(check.refusals.length > 0 && {
      refusal:
        `the publish folder "${shownPublish}" would serve what must stay private:${list(check.refusals)}\n` +
        "Everything in the publish folder is served, locally too. Move these out of it (or publish a folder of the generated pages only), then build again.",
    }),
    ...(check.warnings.length > 0 && {
      warning: `the publish folder "${shownPublish}" holds files a blog does not need to serve:${list(check.warnings)}\nLeave them out of the build: ${excludeHint(siteRoot)}.`,
    }),
  };
}

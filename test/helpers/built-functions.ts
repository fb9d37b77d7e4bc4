// The functions as they deploy (scripts/build-functions.ts), built once per content and shared by
// every `netlify dev` a test run starts (and by the next run, until a source changes): a build
// takes seconds on a busy machine, and test files used to make one each. The folder's name is a
// hash of everything the build reads (the functions' sources, netlify/lib, the build script, the
// lockfile), so a change to any of them makes a fresh build. A build goes to a folder of its own
// and is renamed into place, so runs and workers racing to build it never see half a folder.
// The folders are only read: netlify-cli writes its own files in each server's working folder.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, stat, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Build } from "../../netlify/lib/platform/setup.ts";
import { buildFunctions } from "../../scripts/build-functions.ts";

const repoRoot = new URL("../..", import.meta.url).pathname;
const INPUTS = ["netlify/functions", "netlify/lib", "scripts/build-functions.ts", "package.json", "package-lock.json"];
const CACHE = join(tmpdir(), "netlify-indieauth-test-functions");
const DAY_MS = 24 * 60 * 60 * 1000;

function filesOf(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: "utf8" })
    .map((name) => join(path, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

/** A hash of every file the functions' build reads from this checkout. */
export function functionsSourceHash(): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of filesOf(join(repoRoot, input))) {
      hash.update(relative(repoRoot, file)).update("\0").update(readFileSync(file)).update("\0");
    }
  }
  return hash.digest("hex").slice(0, 16);
}

const builds = new Map<Build, Promise<string>>();

/** The folder of the built functions for `built`, building them if no run has yet. */
export function cachedFunctions(built: Build = "standalone"): Promise<string> {
  let folder = builds.get(built);
  if (!folder) {
    folder = (async () => {
      const final = join(CACHE, `${functionsSourceHash()}-${built}`);
      if (existsSync(final)) {
        // Marks it as in use, so that pruneFunctionCache keeps it.
        await utimes(final, new Date(), new Date());
        return final;
      }
      await mkdir(CACHE, { recursive: true });
      const scratch = await mkdtemp(join(CACHE, `building-${built}-`));
      await buildFunctions(scratch, { built });
      try {
        await rename(scratch, final);
      } catch (error) {
        // Another run renamed the same build into place first: its copy is as good as ours.
        await rm(scratch, { recursive: true, force: true });
        if (!existsSync(final)) throw error;
      }
      return final;
    })();
    builds.set(built, folder);
    folder.catch(() => builds.delete(built));
  }
  return folder;
}

/** Removes builds (and abandoned scratch folders) untouched for a day: older sources' builds. */
export async function pruneFunctionCache(): Promise<void> {
  if (!existsSync(CACHE)) return;
  for (const name of await readdir(CACHE)) {
    const path = join(CACHE, name);
    const { mtimeMs } = await stat(path);
    if (Date.now() - mtimeMs > DAY_MS) await rm(path, { recursive: true, force: true });
  }
}

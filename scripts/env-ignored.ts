// Whether git would commit a blog's .env, which holds SECRET and PASSWORD_HASH. netlify-cli
// writes a .gitignore of `.netlify` alone when the blog has none, so a blog can seem looked after
// and still not ignore .env; `npx netlify-indieauth dev` says so before it builds.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const ENV_NOT_IGNORED = "Warning: .env holds your SECRET and PASSWORD_HASH, and git would commit it. Add a line `.env` to the blog's .gitignore (with node_modules/ and .netlify/).";

/** True when `dir` holds a .env inside a git work tree that does not ignore it (git absent, or
 * not a repository: false). */
export function envCommittable(dir: string): boolean {
  if (!existsSync(join(dir, ".env"))) return false;
  const tree = spawnSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: dir, encoding: "utf8" });
  if (tree.status !== 0 || tree.stdout.trim() !== "true") return false;
  // 0: ignored, 1: not ignored, 128: git could not tell.
  return spawnSync("git", ["check-ignore", "-q", ".env"], { cwd: dir }).status === 1;
}

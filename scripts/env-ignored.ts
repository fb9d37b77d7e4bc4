// Whether git would commit a blog's environment files (.env holds SECRET and PASSWORD_HASH; netlify-cli
// also reads .env.local, .env.development and .env.development.local). netlify-cli writes a
// .gitignore of `.netlify` alone when the blog has none, so a blog can seem looked after and
// still not ignore them; `npx netlify-indieauth dev` says so before it builds.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const ENV_FILES = [".env", ".env.local", ".env.development", ".env.development.local"];

export function envNotIgnored(files: readonly string[]): string {
  return `Warning: ${files.join(", ")} ${files.length === 1 ? "holds" : "hold"} your SECRET and PASSWORD_HASH, and git would commit ${files.length === 1 ? "it" : "them"}. Add ${files.map((f) => `\`${f}\``).join(" and ")} to the blog's .gitignore (with node_modules/ and .netlify/).`;
}

/** The environment files in `dir` that a git work tree there does not ignore (none when git is
 * absent, or `dir` is not in a repository). */
export function committableEnvFiles(dir: string): string[] {
  const present = ENV_FILES.filter((file) => existsSync(join(dir, file)));
  if (present.length === 0) return [];
  const tree = spawnSync("git", ["rev-parse", "--is-inside-work-tree"], { cwd: dir, encoding: "utf8" });
  if (tree.status !== 0 || tree.stdout.trim() !== "true") return [];
  // 0: ignored, 1: not ignored, 128: git could not tell.
  return present.filter((file) => spawnSync("git", ["check-ignore", "-q", file], { cwd: dir }).status === 1);
}

// Adding the server to an existing blog with the build plugin: a real `netlify build
// --offline` of a small fixture blog must produce the functions (with their routes), the
// headers and the pages under /indieauth/, and leave the blog's own pages and routes alone.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testEnv } from "../helpers/env.ts";

const repo = new URL("../..", import.meta.url).pathname;
const fixture = new URL("../fixtures/blog", import.meta.url).pathname;
const cli = createRequire(import.meta.url).resolve("netlify-cli/bin/run.js");
const made: string[] = [];

/** The package's production dependency folders, as npm lays them out (node_modules/...). */
const dependencyDirs = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: repo, encoding: "utf8" })
  .stdout.split("\n")
  .map((line) => relative(repo, line.trim()))
  .filter((dir) => dir.startsWith("node_modules") && !dir.slice("node_modules/".length).includes("node_modules/"));

/** The fixture blog with this package installed in it as npm would (offline: copied, not
 * linked, so that the bundler sees every file inside the blog's folder, as on Netlify). */
function blogCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "indieauth-blog-"));
  made.push(dir);
  cpSync(fixture, dir, { recursive: true });
  const installed = join(dir, "node_modules", "netlify-indieauth");
  for (const part of ["package.json", "netlify.toml", "netlify", "scripts", "site"]) cpSync(join(repo, part), join(installed, part), { recursive: true });
  for (const dep of dependencyDirs) cpSync(join(repo, dep), join(dir, dep), { recursive: true });
  return dir;
}

function netlifyBuild(dir: string, env: Record<string, string | undefined>) {
  const clean: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  return spawnSync(process.execPath, [cli, "build", "--offline", "--cwd", dir], { cwd: dir, env: clean, encoding: "utf8", input: "", timeout: 120_000 });
}

afterAll(() => {
  if (!process.env.KEEP_FIXTURES) for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("the build plugin on a fixture blog", () => {
  it("adds the functions, routes, headers and pages without touching the blog", async () => {
    const dir = blogCopy();
    const result = netlifyBuild(dir, { ...(await testEnv({ BASE_URL: undefined })), URL: "https://jane.example", CONTEXT: "production" });
    expect(result.status, result.stdout + result.stderr).toBe(0);

    const manifest = JSON.parse(readFileSync(join(dir, ".netlify", "functions", "manifest.json"), "utf8")) as {
      functions: { name: string; routes?: { pattern?: string; literal?: string }[]; schedule?: string }[];
    };
    const routesOf = (name: string) => manifest.functions.find((f) => f.name === name)?.routes?.map((r) => r.literal ?? r.pattern);
    expect(routesOf("indieauth-auth")).toEqual(["/auth"]);
    expect(routesOf("indieauth-approve")).toEqual(["/auth/approve"]);
    expect(routesOf("indieauth-metadata")).toEqual(["/.well-known/oauth-authorization-server"]);
    for (const name of ["token", "introspect", "revoke", "userinfo"]) expect(routesOf(`indieauth-${name}`)).toEqual([`/${name}`]);
    expect(routesOf("indieauth-account")).toEqual(["/indieauth/api/account", "/indieauth/api/account/*"]);
    expect(routesOf("indieauth-passkeys")).toEqual(["/indieauth/api/passkeys/*"]);
    expect(manifest.functions.find((f) => f.name === "indieauth-cleanup")?.schedule).toBe("@hourly");
    // Each bundle carries the server's dependencies (zip entry names are stored as plain text).
    const tokenZip = readFileSync(join(dir, ".netlify", "functions", "indieauth-token.zip")).toString("latin1");
    expect(tokenZip).toContain("node_modules/ipaddr.js/");

    const publish = join(dir, "public");
    expect(readFileSync(join(publish, "indieauth", "sign-in", "index.html"), "utf8")).toContain('action="/auth/approve"');
    expect(existsSync(join(publish, "indieauth", "assets", "sign-in.js"))).toBe(true);
    // The blog's own pages and stylesheet are exactly as they were.
    for (const file of ["index.html", join("about", "index.html"), join("assets", "site.css")]) {
      expect(readFileSync(join(publish, file), "utf8")).toBe(readFileSync(join(fixture, "public", file), "utf8"));
    }

    const config = JSON.parse(readFileSync(join(dir, ".netlify", "v1", "config.json"), "utf8")) as { headers: { for: string; values: Record<string, string> }[] };
    expect(config.headers.find((h) => h.for === "/indieauth/sign-in/*")?.values["X-Frame-Options"]).toBe("DENY");
    // The blog's own redirect is still there.
    expect(result.stdout + result.stderr).not.toMatch(/error/i);
    expect(readFileSync(join(dir, "netlify.toml"), "utf8")).toContain('from = "/old-post"');
  });

  it("stops a production build whose environment is incomplete, saying what to set", async () => {
    const dir = blogCopy();
    const result = netlifyBuild(dir, { ...(await testEnv({ BASE_URL: undefined, SECRET: undefined })), URL: "https://jane.example", CONTEXT: "production" });
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toContain("SECRET");
  });
});

// The build plugin in a real blog build: an Eleventy blog (test/fixtures/eleventy-blog) whose
// build command empties its output first (`rm -rf _site && eleventy`), with this package
// installed from its `npm pack` tarball, built by `netlify build --offline` in the production
// context. The plugin writes after the build command, so its pages survive, and the blog's own
// output is exactly what Eleventy alone writes.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllHeaders } from "@netlify/headers-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEnv } from "../helpers/env.ts";
import {
  blogEnv,
  filesUnder,
  fixtures,
  installBlog,
  netlifyBuild,
  removeTempDirs,
  repo,
  tempDir,
} from "../helpers/blog.ts";

const productionEnv = async () => ({
  ...(await testEnv({ BASE_URL: undefined })),
  URL: "https://jane.example",
  CONTEXT: "production",
});

let blog: string;
let reference: string;
let build: SpawnSyncReturns<string>;
const site = () => join(blog, "_site");

beforeAll(async () => {
  blog = installBlog("eleventy-blog");

  // What Eleventy alone writes for the same blog: the reference for "untouched".
  const source = tempDir("indieauth-eleventy-source-");
  cpSync(join(fixtures, "eleventy-blog"), source, { recursive: true });
  reference = tempDir("indieauth-eleventy-reference-");
  const eleventy = spawnSync(
    process.execPath,
    [join(repo, "node_modules", "@11ty", "eleventy", "cmd.cjs"), `--output=${reference}`],
    { cwd: source, env: blogEnv(), encoding: "utf8" },
  );
  if (eleventy.status !== 0) throw new Error(`eleventy failed:\n${eleventy.stdout}${eleventy.stderr}`);

  // A file from an earlier build: the build command's `rm -rf _site` must remove it.
  mkdirSync(site(), { recursive: true });
  writeFileSync(join(site(), "left-over.html"), "<p>from an earlier build</p>");

  build = netlifyBuild(blog, await productionEnv());
}, 420_000);

afterAll(removeTempDirs);

describe("an Eleventy blog whose build command empties _site, built by netlify build", () => {
  it("builds: the blog's build command runs (and empties _site) before the plugin writes its pages", () => {
    const log = build.stdout + build.stderr;
    expect(build.status, log).toBe(0);
    expect(existsSync(join(site(), "left-over.html"))).toBe(false);
    const eleventyDone = log.indexOf("[11ty] Copied 2 Wrote 3 files");
    const pluginDone = log.indexOf("netlify-indieauth: pages in _site/indieauth/");
    expect(eleventyDone, log).toBeGreaterThan(-1);
    expect(pluginDone, log).toBeGreaterThan(eleventyDone);
    expect(log).not.toMatch(/error/i);
  });

  it("leaves every file Eleventy wrote byte-identical and adds nothing outside /indieauth/ but its headers", () => {
    const own = filesUnder(reference);
    expect(own).toEqual([
      "_headers",
      "assets/site.css",
      "index.html",
      "posts/hello/index.html",
      "posts/second/index.html",
    ]);
    const built = filesUnder(site());
    expect(built.filter((file) => !file.startsWith("indieauth/"))).toEqual(own);
    for (const file of own.filter((f) => f !== "_headers")) {
      expect(readFileSync(join(site(), file)).equals(readFileSync(join(reference, file))), file).toBe(true);
    }
    // The blog's own _headers comes first, unchanged; the plugin's block follows it.
    const headers = readFileSync(join(site(), "_headers"), "utf8");
    expect(headers.startsWith(readFileSync(join(reference, "_headers"), "utf8"))).toBe(true);
  });

  it("puts the pages under /indieauth/, with links that stay there", () => {
    const built = filesUnder(site()).filter((file) => file.startsWith("indieauth/"));
    for (const page of [
      "indieauth/index.html",
      "indieauth/sign-in/index.html",
      "indieauth/self-test/index.html",
      "indieauth/account/index.html",
    ]) {
      expect(built).toContain(page);
    }
    for (const asset of ["sign-in.js", "home.js", "self-test.js", "account.js", "site.css"])
      expect(built).toContain(`indieauth/assets/${asset}`);
    expect(readFileSync(join(site(), "indieauth", "sign-in", "index.html"), "utf8")).toContain(
      'action="/auth/approve"',
    );
    // In a blog, "/" is the blog's home page: the self-test result leads back to /indieauth/.
    const selfTest = readFileSync(join(site(), "indieauth", "self-test", "index.html"), "utf8");
    expect(selfTest).toContain('<a href="/indieauth/">Back to the home page</a>');
    expect(selfTest).not.toMatch(/href="\/"/);
    const home = readFileSync(join(site(), "indieauth", "index.html"), "utf8");
    expect(home).toContain("https://jane.example/auth");
  });

  it("bundles the functions with their routes", () => {
    const manifest = JSON.parse(readFileSync(join(blog, ".netlify", "functions", "manifest.json"), "utf8")) as {
      functions: {
        name: string;
        routes?: { pattern?: string; literal?: string }[];
        schedule?: string;
        runtimeVersion?: string;
      }[];
    };
    const routesOf = (name: string) =>
      manifest.functions.find((f) => f.name === name)?.routes?.map((r) => r.literal ?? r.pattern);
    expect(routesOf("indieauth-auth")).toEqual(["/auth", "/auth/logo"]);
    expect(routesOf("indieauth-approve")).toEqual(["/auth/approve", "/auth/approve/check"]);
    expect(routesOf("indieauth-token")).toEqual(["/token"]);
    expect(routesOf("indieauth-metadata")).toEqual(["/.well-known/oauth-authorization-server"]);
    expect(manifest.functions.find((f) => f.name === "indieauth-cleanup")?.schedule).toBe("@hourly");
    // They run on the Lambda Node.js runtime of the build's major version (docs/configuration.md, "Node.js
    // versions"); Netlify maps 18, 20 and 22 so, and leaves other versions to its default.
    const major = Number(process.versions.node.split(".")[0]);
    if ([18, 20, 22].includes(major))
      expect([...new Set(manifest.functions.map((f) => f.runtimeVersion))]).toEqual([`nodejs${major}.x`]);
  });

  it("writes the pages' headers into _site/_headers, as Netlify's own parser reads them, next to the blog's", async () => {
    const { headers, errors } = await parseAllHeaders({
      headersFiles: [join(site(), "_headers")],
      configHeaders: [],
      minimal: true,
    });
    expect(errors).toEqual([]);
    const rule = (path: string) => headers.find((h) => h.for === path)?.values ?? {};
    expect(rule("/assets/*")).toEqual({ "Cache-Control": "public, max-age=31536000" });
    expect(rule("/indieauth/sign-in/*")).toMatchObject({ "X-Frame-Options": "DENY", "Cache-Control": "no-store" });
    expect(rule("/indieauth/sign-in/*")["Content-Security-Policy"]).toContain("frame-ancestors 'none'");
    expect(rule("/indieauth/account/*")).toMatchObject({ "X-Frame-Options": "DENY", "Cache-Control": "no-store" });
    expect(rule("/indieauth/*")).toEqual({
      // Whatever lands under /indieauth/ without a page's own rule runs no script.
      "Content-Security-Policy":
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      "Strict-Transport-Security": "max-age=31536000",
      "Cross-Origin-Opener-Policy": "same-origin",
    });
    // Nothing for the blog's own pages.
    expect(headers.map((h) => h.for).filter((path) => !path.startsWith("/indieauth/"))).toEqual(["/assets/*"]);
  });

  it("stops with a clear message when the publish folder does not exist after the build command", async () => {
    const copy = tempDir("indieauth-eleventy-wrong-publish-");
    cpSync(blog, copy, { recursive: true, verbatimSymlinks: true });
    const toml = join(copy, "netlify.toml");
    writeFileSync(toml, readFileSync(toml, "utf8").replace('publish = "_site"', 'publish = "public"'));
    const result = netlifyBuild(copy, await productionEnv());
    const log = result.stdout + result.stderr;
    expect(result.status, log).not.toBe(0);
    expect(log).toContain('the publish folder "public" does not exist after the build command');
    expect(existsSync(join(copy, "public"))).toBe(false);
  }, 300_000);
});

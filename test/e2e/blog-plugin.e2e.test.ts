// The package as npm installs it, added to a blog with the build plugin: `npm pack` of this
// checkout installed into a small fixture blog (test/fixtures/blog, static files and no build
// command), then a real `netlify build --offline`. It must produce the functions (with their
// routes, prebuilt so that each runs from its zip alone), the headers and the pages under /indieauth/, and leave the blog's
// own pages and routes alone. A file the package's `files` list leaves out fails this build.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEnv } from "../helpers/env.ts";
import { fixtures, installBlog, netlifyBuild, packedTarball, removeTempDirs } from "../helpers/blog.ts";
import { unzip } from "../../scripts/bench/zip.ts";

const fixture = join(fixtures, "blog");

/** Imports a deployed function module and prints its answer to a metadata request. */
const RUN_METADATA = `const { default: handler } = await import(process.argv[1]);
const response = await handler(new Request("https://jane.example/.well-known/oauth-authorization-server"), {});
process.stdout.write(JSON.stringify({ status: response.status, body: await response.json() }));`;

let tarball: string;
let dir: string;
beforeAll(() => {
  tarball = packedTarball();
  dir = installBlog("blog");
}, 240_000);
afterAll(removeTempDirs);

describe("the package's tarball", () => {
  it("holds the plugin, functions, server, build scripts and page sources, and no tests, CI script or screenshots", () => {
    const listing = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ""));
    for (const file of [
      "package.json",
      "README.md",
      "netlify.toml",
      "netlify/plugin/index.mjs",
      "netlify/plugin/manifest.yml",
      "netlify/functions/auth.ts",
      "netlify/lib/platform/config.ts",
      "scripts/build.ts",
      "scripts/cli.mjs",
      "scripts/hash-password.ts",
      "site/templates/sign-in.liquid",
      "site/scripts/sign-in.ts",
      "site/styles/site.css",
    ]) {
      expect(listing).toContain(file);
    }
    expect(
      listing.filter((file) =>
        /^(test|\.ci|site\/screenshots)\/|^scripts\/bench|\.env$|^dist\/|^\.netlify\//.test(file),
      ),
    ).toEqual([]);
  });
});

describe("the build plugin on a fixture blog, installed from the tarball", () => {
  it("adds the functions, routes, headers and pages without touching the blog", async () => {
    const result = netlifyBuild(dir, {
      ...(await testEnv({ BASE_URL: undefined })),
      URL: "https://jane.example",
      CONTEXT: "production",
    });
    expect(result.status, result.stdout + result.stderr).toBe(0);

    const manifest = JSON.parse(readFileSync(join(dir, ".netlify", "functions", "manifest.json"), "utf8")) as {
      functions: { name: string; routes?: { pattern?: string; literal?: string }[]; schedule?: string }[];
    };
    const routesOf = (name: string) =>
      manifest.functions.find((f) => f.name === name)?.routes?.map((r) => r.literal ?? r.pattern);
    expect(routesOf("indieauth-auth")).toEqual(["/auth", "/auth/logo"]);
    expect(routesOf("indieauth-approve")).toEqual(["/auth/approve", "/auth/approve/check"]);
    expect(routesOf("indieauth-metadata")).toEqual(["/.well-known/oauth-authorization-server"]);
    for (const name of ["token", "introspect", "revoke", "userinfo"])
      expect(routesOf(`indieauth-${name}`)).toEqual([`/${name}`]);
    expect(routesOf("indieauth-register")).toEqual(["/register", "/register/*"]);
    expect(routesOf("indieauth-account")).toEqual(["/indieauth/api/account", "/indieauth/api/account/*"]);
    expect(routesOf("indieauth-passkeys")).toEqual(["/indieauth/api/passkeys/*"]);
    expect(manifest.functions.find((f) => f.name === "indieauth-cleanup")?.schedule).toBe("@hourly");
    // Each zip is the prebuilt function as it deploys: it runs on its own, as Netlify runs it.
    const unzipped = join(dir, "unzipped-metadata");
    const files = (await unzip(join(dir, ".netlify", "functions", "indieauth-metadata.zip"), unzipped)).map(
      (e) => e.name,
    );
    expect(files).toEqual(expect.arrayContaining(["indieauth-metadata.mjs", "handler.mjs"]));
    expect(files.filter((f) => f.includes("node_modules/"))).toEqual([]);
    const served = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", RUN_METADATA, pathToFileURL(join(unzipped, "indieauth-metadata.mjs")).href],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", ...(await testEnv({ BASE_URL: undefined })), URL: "https://jane.example" },
      },
    );
    expect(served.stderr).toBe("");
    expect(JSON.parse(served.stdout)).toMatchObject({
      status: 200,
      body: { issuer: "https://jane.example/", token_endpoint: "https://jane.example/token" },
    });

    const publish = join(dir, "public");
    expect(readFileSync(join(publish, "indieauth", "sign-in", "index.html"), "utf8")).toContain(
      'action="/auth/approve"',
    );
    expect(existsSync(join(publish, "indieauth", "assets", "sign-in.js"))).toBe(true);
    // The blog's own pages and stylesheet are exactly as they were.
    for (const file of ["index.html", join("about", "index.html"), join("assets", "site.css")]) {
      expect(readFileSync(join(publish, file), "utf8")).toBe(readFileSync(join(fixture, "public", file), "utf8"));
    }

    // The pages' headers, in the publish folder's _headers (the blog had none).
    const headers = readFileSync(join(publish, "_headers"), "utf8");
    expect(headers).toMatch(/^\/indieauth\/sign-in\/\*\n(  .+\n)*  X-Frame-Options: DENY\n/m);
    // The blog's own redirect is still there.
    expect(result.stdout + result.stderr).not.toMatch(/error/i);
    expect(readFileSync(join(dir, "netlify.toml"), "utf8")).toContain('from = "/old-post"');
  }, 300_000);

  it("stops a production build whose environment is incomplete, saying what to set", async () => {
    const result = netlifyBuild(dir, {
      ...(await testEnv({ BASE_URL: undefined, SECRET: undefined })),
      URL: "https://jane.example",
      CONTEXT: "production",
    });
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toContain("SECRET");
  }, 300_000);

  it("builds again over its own earlier output, and warns, naming the generators' exclude settings, for a package.json in the publish folder", async () => {
    writeFileSync(join(dir, "public", "package.json"), readFileSync(join(dir, "package.json")));
    try {
      const result = netlifyBuild(dir, {
        ...(await testEnv({ BASE_URL: undefined })),
        URL: "https://jane.example",
        CONTEXT: "production",
      });
      const output = result.stdout + result.stderr;
      expect(result.status, output).toBe(0);
      expect(output).toContain(
        'netlify-indieauth warning: the publish folder "public" holds files a blog does not need to serve:',
      );
      expect(output).toContain("- package.json: a project file");
      // A plain folder: every generator's setting, and the plain folder's way out.
      expect(output).toContain(
        "Jekyll's `exclude:` in _config.yml, Hugo's static/ folder or `ignoreFiles`, Eleventy's .eleventyignore",
      );
      expect(readFileSync(join(dir, "public", "indieauth", "sign-in", "index.html"), "utf8")).toContain(
        'action="/auth/approve"',
      );
      expect(readFileSync(join(dir, "public", "indieauth", ".netlify-indieauth-manifest.json"), "utf8")).toContain(
        '"sign-in/index.html"',
      );
    } finally {
      rmSync(join(dir, "public", "package.json"));
    }
  }, 300_000);

  it("stops, naming it, at a file of the blog's under public/indieauth/, and leaves it there", async () => {
    writeFileSync(join(dir, "public", "indieauth", "post.html"), "<p>Why I sign in as my own domain</p>\n");
    try {
      const result = netlifyBuild(dir, {
        ...(await testEnv({ BASE_URL: undefined })),
        URL: "https://jane.example",
        CONTEXT: "production",
      });
      expect(result.status).not.toBe(0);
      expect(result.stdout + result.stderr).toContain("- public/indieauth/post.html");
      expect(readFileSync(join(dir, "public", "indieauth", "post.html"), "utf8")).toBe(
        "<p>Why I sign in as my own domain</p>\n",
      );
    } finally {
      rmSync(join(dir, "public", "indieauth", "post.html"));
    }
  }, 300_000);

  it("refuses a publish folder holding a file with SECRET's value, or a .env, naming each", async () => {
    const env = await testEnv({ BASE_URL: undefined });
    mkdirSync(join(dir, "public", "notes"));
    writeFileSync(join(dir, "public", "notes", "setup.txt"), `SECRET=${env.SECRET}\n`);
    writeFileSync(join(dir, "public", ".env"), "ME=https://jane.example/\n");
    try {
      const result = netlifyBuild(dir, { ...env, URL: "https://jane.example", CONTEXT: "production" });
      const output = result.stdout + result.stderr;
      expect(result.status).not.toBe(0);
      expect(output).toContain('the publish folder "public" would serve what must stay private');
      expect(output).toContain("- notes/setup.txt: holds the value of SECRET");
      expect(output).toContain("- .env: an environment file");
    } finally {
      rmSync(join(dir, "public", "notes"), { recursive: true });
      rmSync(join(dir, "public", ".env"));
    }
  }, 300_000);

  it("stops at the blog's netlify.toml [[headers]] for \"/*\" that would replace the sign-in page's CSP and framing rule", async () => {
    const toml = readFileSync(join(dir, "netlify.toml"), "utf8");
    writeFileSync(
      join(dir, "netlify.toml"),
      `${toml}\n[[headers]]\n  for = "/*"\n  [headers.values]\n    Content-Security-Policy = "frame-ancestors 'self'"\n    X-Frame-Options = "SAMEORIGIN"\n`,
    );
    try {
      const result = netlifyBuild(dir, {
        ...(await testEnv({ BASE_URL: undefined })),
        URL: "https://jane.example",
        CONTEXT: "production",
      });
      const output = result.stdout + result.stderr;
      expect(result.status).not.toBe(0);
      expect(output).toContain(
        'netlify.toml [[headers]], the rule for "/*": Content-Security-Policy, X-Frame-Options (it matches /indieauth/sign-in/)',
      );
      expect(output).toContain("Narrow each rule to the blog's own paths");
    } finally {
      writeFileSync(join(dir, "netlify.toml"), toml);
    }
  }, 300_000);
});

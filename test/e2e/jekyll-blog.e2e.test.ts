// The local trial in a fresh Jekyll blog (Debian's `jekyll`, no Gemfile; test/fixtures/jekyll-blog:
// a layout, a post, a stylesheet, and an h-card on the home page), step by step as the README gives
// it: the tarball kept in the blog's own vendor/ folder and installed from there, the README's
// `exclude:` line in _config.yml, Jekyll's build command and publish folder and the plugin in
// netlify.toml, the password's hash from the package's command, a .env written for port 8888,
// then `npx netlify-indieauth dev --port N` on a free port. Then what a person checks: nothing of
// the project's own files published, the blog as Jekyll alone builds it, the pages of the port it
// was started on (not .env's), the name from the home page's h-card (no PROFILE_NAME), and the
// sign-in by hand that the command prints, pasted as printed.
// Skips (saying why) only where jekyll is not installed and this is not CI; in CI it must run.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogEnv, filesUnder, installBlog, removeTempDirs, repo, shell, tempDir } from "../helpers/blog.ts";
import { TEST_SECRET } from "../helpers/env.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { followPrintedSignIn } from "../helpers/printed-sign-in.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";

const hasJekyll = spawnSync("jekyll", ["--version"], { encoding: "utf8" }).status === 0;
const inCi = Boolean(process.env.CI);
if (!hasJekyll && !inCi)
  console.warn(
    "test/e2e/jekyll-blog.e2e.test.ts skipped: jekyll is not installed (apt-get install -y jekyll; .ci/run installs it)",
  );

const README = readFileSync(join(repo, "README.md"), "utf8");
const PACKAGE = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { name: string; version: string };
const TARBALL = `${PACKAGE.name}-${PACKAGE.version}.tgz`;
/** The README's line for Jekyll's _config.yml. */
const EXCLUDE = /^ *(exclude: \[.*\])$/m.exec(README)?.[1];
const PASSWORD = "a password for the Jekyll trial";
/** The README's generator table, Jekyll's row: its build command and publish folder, and the plugin. */
const NETLIFY_TOML = `[build]
  command = "jekyll build"
  publish = "_site"

[[plugins]]
  package = "netlify-indieauth"
`;

let blog: string;
let base: string;
let server: ChildProcess | undefined;
let log = "";

/** Resolves once the command says it is ready (it says so only after the server answers). */
function untilReady(ready: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ready}" within ${timeoutMs} ms:\n${log}`)), timeoutMs);
    const check = () => {
      if (log.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    server!.stdout!.on("data", check);
    server!.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`npx netlify-indieauth dev exited:\n${log}`));
    });
  });
}

describe.runIf(!hasJekyll && inCi)("the Jekyll blog trial in CI", () => {
  it("has jekyll installed (.ci/run installs it with apt)", () => {
    expect(hasJekyll).toBe(true);
  });
});

describe.skipIf(!hasJekyll)("the README's local trial in a fresh Jekyll blog", () => {
  beforeAll(async () => {
    expect(README).toContain(`npm install --save-dev netlify-cli@26 ./vendor/${TARBALL}`);
    expect(README).toContain("| Jekyll | `jekyll build`");
    expect(EXCLUDE).toBeDefined();
    blog = installBlog("jekyll-blog", { tarballFolder: "vendor" });
    appendFileSync(join(blog, "_config.yml"), `${EXCLUDE}\n`);
    const port = await freePort();
    base = `http://localhost:${port}`;
    writeFileSync(join(blog, "netlify.toml"), NETLIFY_TOML);
    const hash = (await shell(blog, "npx netlify-indieauth hash-password", {}, PASSWORD)).stdout.trim();
    writeFileSync(join(blog, ".env"), `ME=http://localhost:8888/\nSECRET=${TEST_SECRET}\nPASSWORD_HASH='${hash}'\n`);

    server = spawn("bash", ["-c", `npx netlify-indieauth dev --port ${port}`], {
      cwd: blog,
      env: blogEnv(),
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    server.stdout!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    server.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
    await untilReady(`Ready: ${base}/`, 420_000);
  }, 600_000);

  afterAll(async () => {
    await stopProcessGroup(server);
    removeTempDirs();
  });

  it("installs the package from the tarball kept in the blog's repository, which a Netlify build of it finds", () => {
    const manifest = JSON.parse(readFileSync(join(blog, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies["netlify-indieauth"]).toBe(`file:vendor/${TARBALL}`);
  });

  it("publishes none of the project's own files with the README's exclude: line (the plugin warns of none)", () => {
    expect(log).toContain("jekyll build");
    expect(log).not.toContain("holds files a blog does not need to serve");
    const published = filesUnder(join(blog, "_site"));
    for (const file of ["package.json", "package-lock.json", "netlify.toml", `vendor/${TARBALL}`, ".env"])
      expect(published).not.toContain(file);
    expect(published.some((file) => file.startsWith("node_modules/"))).toBe(false);
  });

  it("serves the blog exactly as Jekyll alone builds it", async () => {
    const alone = tempDir("indieauth-jekyll-alone-");
    const built = spawnSync("jekyll", ["build", "--source", blog, "--destination", alone], {
      cwd: blog,
      encoding: "utf8",
    });
    expect(built.status, built.stderr).toBe(0);
    const ours = filesUnder(join(blog, "_site")).filter(
      (file) => !file.startsWith("indieauth/") && file !== "_headers",
    );
    expect(ours).toEqual(filesUnder(alone));
    for (const file of ours)
      expect({ file, same: readFileSync(join(blog, "_site", file)).equals(readFileSync(join(alone, file))) }).toEqual({
        file,
        same: true,
      });
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe(readFileSync(join(alone, "index.html"), "utf8"));
    expect(await (await fetch(`${base}/posts/hello/`)).text()).toContain("The first post of this Jekyll blog.");
  });

  it("puts the port it was started on into the pages, as into the tokens, never .env's 8888", async () => {
    expect(log).toContain(`.env has ME=http://localhost:8888/, for another port; this run uses ME=${base}/.`);
    for (const path of ["/indieauth/", "/indieauth/sign-in/", "/indieauth/account/"]) {
      const html = await (await fetch(`${base}${path}`)).text();
      expect({ path, here: html.includes(new URL(base).host) }).toEqual({ path, here: true });
      expect({ path, other: html.includes("localhost:8888") }).toEqual({ path, other: false });
    }
  });

  it("shows the name and photo of the home page's h-card on the sign-in page (no PROFILE_NAME), and says it read them", async () => {
    const html = await (await fetch(`${base}/indieauth/sign-in/`)).text();
    expect(html).toContain("Jane Doe");
    expect(html).toMatch(/<img[^>]+src="\/indieauth\/assets\/owner-photo\.png"/);
    expect(log).toContain(`name and photo from the h-card of ${base}/`);
  });

  it("signs in with the URL and curl command it printed: a token for this blog's address", async () => {
    const printed = await followPrintedSignIn(log, base, PASSWORD);
    expect(printed.redeemed).toMatchObject({ me: `${base}/`, scope: "profile create" });
    expect(printed.redeemed.access_token).toEqual(expect.any(String));
  });
});

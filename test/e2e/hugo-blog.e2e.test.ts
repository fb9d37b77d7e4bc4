// The local trial in a fresh Hugo blog (Debian's `hugo`; test/fixtures/hugo-blog: a layout, a
// post, a stylesheet), step by step as the docs give it: the package installed from its `npm pack`
// tarball, Hugo's build command and publish folder and the plugin in netlify.toml, the password's
// hash from the package's command, a .env written for port 8888, then `npx netlify-indieauth dev
// --port N` on a free port. Then what a person checks: the blog as Hugo alone builds it, the
// server's pages, and the sign-in by hand that the command prints, pasted as printed.
// Skips (saying why) only where hugo is not installed and this is not CI; in CI it must run.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogEnv, filesUnder, installBlog, removeTempDirs, shell, tempDir } from "../helpers/blog.ts";
import { TEST_SECRET } from "../helpers/env.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { followPrintedSignIn } from "../helpers/printed-sign-in.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";

const hasHugo = spawnSync("hugo", ["version"], { encoding: "utf8" }).status === 0;
const inCi = Boolean(process.env.CI);
if (!hasHugo && !inCi)
  console.warn(
    "test/e2e/hugo-blog.e2e.test.ts skipped: hugo is not installed (apt-get install -y hugo; .ci/run installs it)",
  );

const PASSWORD = "a password for the Hugo trial";
/** The docs' netlify.toml for a Hugo blog: its build command and publish folder, and the plugin. */
const NETLIFY_TOML = `[build]
  command = "hugo"
  publish = "public"

[[plugins]]
  package = "netlify-indieauth"
`;

let blog: string;
let base: string;
let server: ChildProcess | undefined;
let log = "";
let hashRun: { status: number | null; stdout: string; stderr: string };

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

describe.runIf(!hasHugo && inCi)("the Hugo blog trial in CI", () => {
  it("has hugo installed (.ci/run installs it with apt)", () => {
    expect(hasHugo).toBe(true);
  });
});

describe.skipIf(!hasHugo)("the docs' local trial in a fresh Hugo blog", () => {
  beforeAll(async () => {
    blog = installBlog("hugo-blog");
    const port = await freePort();
    base = `http://localhost:${port}`;
    writeFileSync(join(blog, "netlify.toml"), NETLIFY_TOML);
    hashRun = await shell(blog, "npx netlify-indieauth hash-password", {}, PASSWORD);
    writeFileSync(
      join(blog, ".env"),
      `ME=http://localhost:8888/\nSECRET=${TEST_SECRET}\nPASSWORD_HASH='${hashRun.stdout.trim()}'\n`,
    );

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

  it("makes the hash with the package's command, and follows the port given (ME included)", () => {
    expect(hashRun.status, hashRun.stderr).toBe(0);
    expect(hashRun.stdout).toMatch(/^\$scrypt\$[^\n]+\n$/);
    expect(log).toContain(`.env has ME=http://localhost:8888/, for another port; this run uses ME=${base}/.`);
    expect(log).not.toContain("localhost:8888/auth");
  });

  it("serves the blog exactly as Hugo alone builds it", async () => {
    const alone = tempDir("indieauth-hugo-alone-");
    const built = spawnSync("hugo", ["--source", blog, "--destination", alone], { encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
    const ours = filesUnder(join(blog, "public")).filter(
      (file) => !file.startsWith("indieauth/") && file !== "_headers",
    );
    expect(ours).toEqual(filesUnder(alone));
    for (const file of ours)
      expect({ file, same: readFileSync(join(blog, "public", file)).equals(readFileSync(join(alone, file))) }).toEqual({
        file,
        same: true,
      });

    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe(readFileSync(join(alone, "index.html"), "utf8"));
    expect(await (await fetch(`${base}/posts/hello/`)).text()).toContain("The first post of this Hugo blog.");
  });

  it("serves the server's pages with their headers", async () => {
    for (const path of ["/indieauth/", "/indieauth/sign-in/", "/indieauth/account/"]) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    expect(metadata.issuer).toBe(`${base}/`);
  });

  it("signs in with the URL and curl command it printed: a token for this blog's address", async () => {
    const printed = await followPrintedSignIn(log, base, PASSWORD);
    expect(printed.redeemed).toMatchObject({ me: `${base}/`, scope: "profile create" });
    expect(printed.redeemed.access_token).toEqual(expect.any(String));
  });
});

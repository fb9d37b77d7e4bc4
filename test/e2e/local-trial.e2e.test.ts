// The README's "Try it on your blog, locally", step by step, in a fresh copy of an Eleventy blog
// (test/fixtures/eleventy-blog, whose build is `rm -rf _site && eleventy`): the package
// installed from its `npm pack` tarball, the netlify.toml, .env and commands taken from the
// README's own code blocks (the .env as written, for port 8888; the command on a free port with
// --port, as the README says), then what a person would check in the browser or with curl: the
// blog, the pages with their headers, a wrong password, a sign-in whose code redeems, and the
// sign-in by hand that the command prints.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogEnv, installBlog, removeTempDirs, repo, shell } from "../helpers/blog.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { connectTo, nonLoopbackAddress } from "../helpers/other-address.ts";
import { followPrintedSignIn } from "../helpers/printed-sign-in.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";

const README = readFileSync(join(repo, "README.md"), "utf8");
const PASSWORD = "a password for the local trial";

/** The text of a README section, from its heading to the next one of the same level. */
function section(heading: string): string {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`README has no section "${heading}"`);
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

/** The code blocks of a section, with the list indentation taken off. */
function codeBlocks(text: string): { lang: string; code: string }[] {
  return [...text.matchAll(/^( *)```(\w*)\n([\s\S]*?)^ *```$/gm)].map(([, indent, lang, code]) => ({
    lang: lang!,
    code: code!
      .split("\n")
      .map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line))
      .join("\n"),
  }));
}

function block(
  blocks: { lang: string; code: string }[],
  test: (b: { lang: string; code: string }) => boolean,
  what: string,
): string {
  const found = blocks.find(test);
  if (!found) throw new Error(`README's local trial has no code block for ${what}`);
  return found.code;
}

const trial = codeBlocks(section("Try it on your blog, locally"));
const netlifyToml = block(trial, (b) => b.lang === "toml", "netlify.toml");
const dotEnv = block(trial, (b) => b.code.includes("PASSWORD_HASH="), ".env");
const hashCommand = "npx netlify-indieauth hash-password";
const serveCommand = block(trial, (b) => b.code.includes("netlify-indieauth dev"), "the server").trim();
// The sign-in request and the PKCE verifier that "Run it locally" gives, which the trial reuses.
const runLocally = section("Run it locally");
const authorizationRequest = /^http:\/\/localhost:8888\/auth\?\S+$/m.exec(runLocally)?.[0];
const codeVerifier = /code_verifier=(\S+)/.exec(runLocally)?.[1];

let blog: string;
let base: string;
let server: ChildProcess | undefined;
let log = "";

/** Resolves once the command says it is ready (it says so only after the server answers). */
function untilReady(ready: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${ready}" within ${timeoutMs} ms:\n${log}`)), timeoutMs);
    server!.stdout!.on("data", () => {
      if (!log.includes(ready)) return;
      clearTimeout(timer);
      resolve();
    });
    server!.on("exit", () => {
      clearTimeout(timer);
      reject(new Error(`npx netlify-indieauth dev exited early:\n${log}`));
    });
  });
}

let hashRun: { status: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  expect(section("Try it on your blog, locally")).toContain(hashCommand);
  blog = installBlog("eleventy-blog");
  const port = await freePort();
  base = `http://localhost:${port}`;

  // Step 2: the blog's netlify.toml, as the README gives it.
  writeFileSync(join(blog, "netlify.toml"), netlifyToml);
  // Step 3: the password's hash, from the package's own command.
  hashRun = await shell(blog, hashCommand, {}, PASSWORD);
  const hash = hashRun.stdout.trim();
  // Step 4: the README's .env, with a real secret and hash (its ME for port 8888, as written).
  const secret = (await shell(blog, "openssl rand -base64 32")).stdout.trim();
  const env = dotEnv
    .replace(/^SECRET=.*$/m, `SECRET=${secret}`)
    .replace(/^PASSWORD_HASH='.*'$/m, `PASSWORD_HASH='${hash}'`);
  writeFileSync(join(blog, ".env"), env);

  // Step 5, on a free port.
  server = spawn("bash", ["-c", `${serveCommand} --port ${port}`], {
    cwd: blog,
    env: blogEnv({ BROWSER: "none" }),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  await untilReady(`Ready: ${base}/`, 300_000);
}, 420_000);

afterAll(async () => {
  await stopProcessGroup(server);
  removeTempDirs();
});

describe("the README's local trial in a fresh Eleventy blog", () => {
  it("gives the steps it says: the package's hash-password command, a .env with a quoted hash, and the package's dev command", () => {
    expect(hashRun.status, hashRun.stderr).toBe(0);
    expect(hashRun.stdout).toMatch(/^\$scrypt\$[^\n]+\n$/);
    expect(dotEnv).toMatch(/^ME=http:\/\/localhost:8888\/$/m);
    expect(dotEnv).toMatch(/^PASSWORD_HASH='.*'$/m);
    expect(serveCommand).toBe("npx netlify-indieauth dev");
    expect(section("Try it on your blog, locally")).toContain("npx netlify-indieauth dev --port 9000");
    expect(log).toContain("rm -rf _site && eleventy");
    // The .env's ME, written for 8888, follows the port given.
    expect(log).toContain(`this run uses ME=${base}/.`);
  });

  it("puts the port given on the pages, as on the tokens, never the .env's 8888 (the build reads .env over the shell)", async () => {
    for (const path of ["/indieauth/", "/indieauth/sign-in/", "/indieauth/account/"]) {
      const html = await (await fetch(`${base}${path}`)).text();
      expect({ path, here: html.includes(`${base}/`) }).toEqual({ path, here: true });
      expect({ path, other: html.includes("localhost:8888") }).toEqual({ path, other: false });
    }
    expect(log).toContain(
      `netlify-indieauth: ME=${base}/ for this run of npx netlify-indieauth dev (not http://localhost:8888/, from .env)`,
    );
  });

  it("listens on this machine only unless told (--host), and says so when ready", async () => {
    expect(log).toContain(
      "Listening on 127.0.0.1 only: nothing but this machine can reach it (npx netlify-indieauth dev --host 0.0.0.0 opens it to your network).",
    );
    const port = Number(new URL(base).port);
    expect(await connectTo("127.0.0.1", port)).toBe("answered");
    const other = nonLoopbackAddress();
    if (other) expect(await connectTo(other, port)).toBe("refused");
  });

  it("serves the blog as Eleventy built it", async () => {
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toBe(readFileSync(join(blog, "_site", "index.html"), "utf8"));
    const post = await fetch(`${base}/posts/hello/`);
    expect(post.status).toBe(200);
    expect(await post.text()).toContain("The first post of this blog.");
  });

  it("serves the server's pages with their security headers", async () => {
    for (const path of ["/indieauth/", "/indieauth/sign-in/", "/indieauth/account/", "/indieauth/self-test/"]) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect({ path, csp }).toEqual({ path, csp: expect.stringContaining("frame-ancestors 'none'") });
      expect(csp).toContain("script-src 'self'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    }
    // The CLI's static server sends its own Cache-Control for files (the README says so);
    // the no-store that Netlify will send is in _headers.
    expect(readFileSync(join(blog, "_site", "_headers"), "utf8")).toMatch(
      /^\/indieauth\/sign-in\/\*\n(  .+\n)*  Cache-Control: no-store\n/m,
    );
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
    };
    expect(metadata.issuer).toBe(`${base}/`);
  });

  it("keeps the self-test's way back under /indieauth/, since / is the blog's home page", async () => {
    const html = await (await fetch(`${base}/indieauth/self-test/`)).text();
    expect(html).toContain('<a href="/indieauth/">Back to the home page</a>');
  });

  it("signs in with README's request: a wrong password comes back to the page, the right one gives a code that redeems to ME", async () => {
    expect(authorizationRequest).toBeDefined();
    expect(codeVerifier).toBeDefined();
    const start = await fetch(authorizationRequest!.replace("http://localhost:8888", base), { redirect: "manual" });
    expect(start.status).toBe(303);
    const page = new URL(start.headers.get("location")!, base);
    expect(page.pathname).toBe("/indieauth/sign-in/");
    const request = new URLSearchParams(page.hash.slice(1)).get("request")!;
    const approve = (password: string) =>
      fetch(`${base}/auth/approve`, {
        method: "POST",
        body: new URLSearchParams({ request, decision: "approve", password, scope: "profile" }),
        headers: { Origin: base, "Sec-Fetch-Site": "same-origin" },
        redirect: "manual",
      });

    const wrong = await approve("not the password");
    expect(wrong.status).toBe(303);
    const back = new URL(wrong.headers.get("location")!, base);
    expect(back.pathname).toBe("/indieauth/sign-in/");
    expect(new URLSearchParams(back.hash.slice(1)).get("error")).toBe("password");

    const right = await approve(PASSWORD);
    expect(right.status).toBe(302);
    const callback = new URL(right.headers.get("location")!);
    expect(callback.origin + callback.pathname).toBe("http://127.0.0.1:3000/callback");
    expect(callback.searchParams.get("state")).toBe("abc");
    expect(callback.searchParams.get("iss")).toBe(`${base}/`);

    const redeemed = await fetch(`${base}/auth`, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: callback.searchParams.get("code")!,
        client_id: "http://127.0.0.1:3000/",
        redirect_uri: "http://127.0.0.1:3000/callback",
        code_verifier: codeVerifier!,
      }),
    });
    expect(redeemed.status).toBe(200);
    expect(((await redeemed.json()) as { me: string }).me).toBe(`${base}/`);
  });

  it("prints a sign-in by hand for its port that works as pasted: a token for this blog's address", async () => {
    const printed = await followPrintedSignIn(log, base, PASSWORD);
    expect(printed.redeemed).toMatchObject({ me: `${base}/`, scope: "profile create" });
    expect(printed.redeemed.access_token).toEqual(expect.any(String));
  });
});

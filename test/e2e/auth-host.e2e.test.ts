// The plugin's recommended setup, an auth host of its own: a fixture blog with the package
// installed from its `npm pack` tarball, INDIEAUTH_HOST=auth.localhost in its .env, built and
// served by the documented local command, `npx netlify-indieauth dev` (the real `netlify serve`:
// the plugin's build, then Netlify's local router with the _redirects the plugin wrote and the
// functions it built). The blog has a 404 page that runs a script, as themes' 404 pages do.
// Requests name the host in their Host header, as a browser on auth.jane.example and on
// jane.example would, and Chromium (which takes *.localhost for this machine) opens the pages:
// the auth host serves only the IndieAuth paths (a missing one gets the server's refusal, never
// the blog's 404 page, and no blog script runs there), the server's pages run their own scripts,
// and the blog's host keeps serving the blog, without the server's pages or functions.
// What only a deploy shows: Netlify's edge applying the same rules (the local router is the same
// matcher, netlify-redirector) and TLS for the alias; see docs/security.md.
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogEnv, fixtures, installBlog, removeTempDirs } from "../helpers/blog.ts";
import { launchChromium } from "../helpers/browser.ts";
import { testEnv } from "../helpers/env.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { connectTo, nonLoopbackAddress } from "../helpers/other-address.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";

let blog: string;
let port: number;
let server: ChildProcess | undefined;
let browser: Browser | undefined;
let log = "";

/** The blog's 404 page: a theme's, with a script that would read the console and open the sign-in page. */
const BLOG_404 = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Jane's blog: not found</title></head>
<body><h1>Jane's blog: page not found</h1>
<script>window.blogScriptRan = true; document.title = "blog script ran";</script></body></html>
`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET `path` from the local server, naming `host` (with the port) as a browser there would. */
function get(host: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { Host: `${host}:${port}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

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

beforeAll(async () => {
  blog = installBlog("blog");
  writeFileSync(join(blog, "public", "404.html"), BLOG_404);
  port = await freePort();
  const env = await testEnv();
  // As docs/blog.md's local trial of the auth host writes it, for this port.
  writeFileSync(
    join(blog, ".env"),
    [
      `ME=http://localhost:${port}/`,
      `SECRET=${env.SECRET}`,
      `PASSWORD_HASH='${env.PASSWORD_HASH}'`,
      `INDIEAUTH_HOST=auth.localhost:${port}`,
      "",
    ].join("\n"),
  );
  server = spawn("bash", ["-c", `npx netlify-indieauth dev --port ${port}`], {
    cwd: blog,
    env: blogEnv({ BROWSER: "none" }),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  await untilReady(`Ready: http://auth.localhost:${port}/`, 300_000);
  browser = await launchChromium();
}, 420_000);

afterAll(async () => {
  await browser?.close();
  await stopProcessGroup(server);
  removeTempDirs();
});

describe("an auth host of its own, built by the plugin and served by npx netlify-indieauth dev", () => {
  it("the plugin wrote its rules first in the blog's _redirects, and says which host", () => {
    const rules = readFileSync(join(blog, "public", "_redirects"), "utf8");
    expect(rules.startsWith("# BEGIN netlify-indieauth")).toBe(true);
    expect(rules).toContain(`http://auth.localhost/*  /indieauth/not-here/  404!`);
    expect(rules).toContain(`http://auth.localhost/indieauth/sign-in/  /indieauth/sign-in/  200!`);
    expect(rules).not.toContain("http://auth.localhost/indieauth/*  /indieauth/:splat");
    expect(log).toContain(`on its own host auth.localhost:${port}`);
  });

  it("on the auth host: the server's functions and pages, with the pages' headers", async () => {
    const metadata = await get("auth.localhost", "/.well-known/oauth-authorization-server");
    expect(JSON.parse(metadata.body)).toMatchObject({
      issuer: `http://auth.localhost:${port}/`,
      authorization_endpoint: `http://auth.localhost:${port}/auth`,
    });
    for (const path of ["/indieauth/", "/indieauth/sign-in/", "/indieauth/account/"]) {
      const page = await get("auth.localhost", path);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(page.headers["cross-origin-opener-policy"]).toBe("same-origin");
      expect(String(page.headers["content-security-policy"])).toContain("frame-ancestors 'none'");
    }
    expect(await get("auth.localhost", "/")).toMatchObject({ status: 301, headers: { location: "/indieauth/" } });
  }, 60_000);

  it("on the auth host: a missing path under /indieauth/ gets the server's script-free refusal, never the blog's 404 page", async () => {
    for (const path of [
      "/indieauth/no-such-page",
      "/indieauth/assets/no-such.js",
      "/indieauth/sign-in/other.html",
      "/indieauth/404.html",
      "/indieauth/not-here/",
    ]) {
      const answer = await get("auth.localhost", path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.body).toContain("This address serves only the IndieAuth server.");
      expect(answer.body).not.toContain("Jane's blog");
      expect(answer.body).not.toContain("<script");
      const csp = String(answer.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain("script-src");
    }
  });

  it("in a browser on the auth host: no blog script runs at a missing path, and the server's pages run their own", async () => {
    const page = await browser!.newPage();
    const refused: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy|Refused to/i.test(message.text()))
        refused.push(message.text());
    });
    const auth = `http://auth.localhost:${port}`;
    const missing = await page.goto(`${auth}/indieauth/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(await page.title()).toBe("Not here");
    expect(await page.evaluate(() => (window as { blogScriptRan?: boolean }).blogScriptRan)).toBeUndefined();
    // Each page's own script runs: what it shows is hidden until its script shows it.
    await page.goto(`${auth}/indieauth/sign-in/`);
    await page.locator("#no-request").waitFor({ state: "visible" });
    await page.goto(`${auth}/indieauth/account/`);
    await page.locator("#sign-in-view").waitFor({ state: "visible" });
    await page.goto(`${auth}/indieauth/`);
    await page.locator("#check-links").click();
    await page.locator("#link-report").filter({ hasText: /\S/ }).waitFor();
    expect(refused).toEqual([]);
    await page.close();
  }, 60_000);

  it("listens on this machine only, and says so", async () => {
    expect(log).toContain("Listening on 127.0.0.1 only: nothing but this machine can reach it");
    expect(await connectTo("127.0.0.1", port)).toBe("answered");
    const other = nonLoopbackAddress();
    if (other) expect(await connectTo(other, port)).toBe("refused");
  });

  it("on the auth host: none of the blog's pages, files or 404 page, only the server's refusal", async () => {
    const blogHome = readFileSync(join(fixtures, "blog", "public", "index.html"), "utf8");
    for (const path of ["/about/", "/index.html", "/assets/site.css", "/no-such-page", "/old-post"]) {
      const answer = await get("auth.localhost", path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(answer.body).toContain("This address serves only the IndieAuth server.");
      expect(answer.body).not.toContain("Jane's blog");
      expect(answer.body).not.toContain("<script");
    }
    expect((await get("auth.localhost", "/")).body).not.toBe(blogHome);
  });

  it("on the blog's host: the blog as before, its own redirect working", async () => {
    const home = await get("localhost", "/");
    expect(home.status).toBe(200);
    expect(home.body).toBe(readFileSync(join(fixtures, "blog", "public", "index.html"), "utf8"));
    expect((await get("localhost", "/about/")).status).toBe(200);
    expect(await get("localhost", "/old-post")).toMatchObject({ status: 301, headers: { location: "/about/" } });
  });

  it("on the blog's host: the server's pages move to the auth host, and its functions refuse to answer", async () => {
    for (const path of ["/indieauth/sign-in/", "/indieauth/account/", "/indieauth/"]) {
      expect(await get("localhost", path)).toMatchObject({
        status: 301,
        headers: { location: `http://auth.localhost:${port}${path}` },
      });
    }
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/auth?client_id=x",
      "/indieauth/api/account/session",
      "/userinfo",
    ]) {
      const answer = await get("localhost", path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: "not_found" });
    }
    // Each function's first answer is a cold start of its own under netlify serve.
  }, 120_000);
});

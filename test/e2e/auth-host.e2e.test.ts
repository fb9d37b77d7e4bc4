// The plugin's recommended setup, an auth host of its own: a fixture blog with the package
// installed from its `npm pack` tarball, INDIEAUTH_HOST set, built and served by the real
// `netlify serve` (the plugin's build, then Netlify's local router with the _redirects the plugin
// wrote and the functions it built). Requests name the host in their Host header, as a browser
// on auth.jane.example and on jane.example would: the auth host serves only the IndieAuth paths,
// and the blog's host keeps serving the blog, without the server's pages or functions.
// What only a deploy shows: Netlify's edge applying the same rules (the local router is the same
// matcher, netlify-redirector) and TLS for the alias; see docs/security.md.
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogEnv, fixtures, installBlog, removeTempDirs } from "../helpers/blog.ts";
import { testEnv } from "../helpers/env.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";

let blog: string;
let port: number;
let server: ChildProcess | undefined;
let log = "";

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

async function waitForServer(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server?.exitCode !== null) throw new Error(`netlify serve exited early:\n${log}`);
    try {
      if ((await get("auth.localhost", "/.well-known/oauth-authorization-server")).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`netlify serve did not answer within ${timeoutMs} ms:\n${log}`);
}

beforeAll(async () => {
  blog = installBlog("blog");
  const [staticPort, functionsPort] = await Promise.all([freePort(), freePort()]);
  port = await freePort();
  const env = await testEnv({
    ME: `http://localhost:${port}/`,
    BASE_URL: `http://auth.localhost:${port}`,
    INDIEAUTH_HOST: `auth.localhost:${port}`,
    PROFILE_PHOTO: undefined,
  });
  server = spawn(
    process.execPath,
    [join(blog, "node_modules", "netlify-cli", "bin", "run.js"), "serve", "--context", "dev", "--offline", "--internal-disable-edge-functions", "--port", String(port), "--staticServerPort", String(staticPort), "--functions-port", String(functionsPort)],
    { cwd: blog, env: blogEnv({ ...env, BROWSER: "none" }), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  server.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  server.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  await waitForServer(300_000);
}, 420_000);

afterAll(async () => {
  await stopProcessGroup(server);
  removeTempDirs();
});

describe("an auth host of its own, built by the plugin and served by netlify serve", () => {
  it("the plugin wrote its rules first in the blog's _redirects, and says which host", () => {
    const rules = readFileSync(join(blog, "public", "_redirects"), "utf8");
    expect(rules.startsWith("# BEGIN netlify-indieauth")).toBe(true);
    expect(rules).toContain(`http://auth.localhost/*  /indieauth/not-here/  404!`);
    expect(log).toContain(`on its own host auth.localhost:${port}`);
  });

  it("on the auth host: the server's functions and pages, with the pages' headers", async () => {
    const metadata = await get("auth.localhost", "/.well-known/oauth-authorization-server");
    expect(JSON.parse(metadata.body)).toMatchObject({ issuer: `http://auth.localhost:${port}/`, authorization_endpoint: `http://auth.localhost:${port}/auth` });
    for (const path of ["/indieauth/", "/indieauth/sign-in/", "/indieauth/account/"]) {
      const page = await get("auth.localhost", path);
      expect({ path, status: page.status }).toEqual({ path, status: 200 });
      expect(page.headers["cross-origin-opener-policy"]).toBe("same-origin");
      expect(String(page.headers["content-security-policy"])).toContain("frame-ancestors 'none'");
    }
    expect(await get("auth.localhost", "/")).toMatchObject({ status: 301, headers: { location: "/indieauth/" } });
  }, 60_000);

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
      expect(await get("localhost", path)).toMatchObject({ status: 301, headers: { location: `http://auth.localhost:${port}${path}` } });
    }
    for (const path of ["/.well-known/oauth-authorization-server", "/auth?client_id=x", "/indieauth/api/account/session", "/userinfo"]) {
      const answer = await get("localhost", path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(answer.body)).toMatchObject({ error: "not_found" });
    }
    // Each function's first answer is a cold start of its own under netlify serve.
  }, 120_000);
});

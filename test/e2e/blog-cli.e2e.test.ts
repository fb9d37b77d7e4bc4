// The packaged command in a blog, installed from this checkout's `npm pack` tarball into the small
// fixture blog: every message names a command that exists there (`npx netlify-indieauth …`), never
// this repository's npm scripts; and `npx netlify-indieauth dev` refuses a busy port or a bad one
// before anything is built.
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_SECRET, testEnv } from "../helpers/env.ts";
import { installBlog, netlifyBuild, removeTempDirs, shell } from "../helpers/blog.ts";
import { freePort } from "../helpers/netlify-dev.ts";

/** What a blog does not have: this repository's npm scripts. */
const REPOSITORY_COMMANDS = /npm run |npm start/;

let blog: string;
beforeAll(() => {
  blog = installBlog("blog");
}, 240_000);
afterAll(removeTempDirs);

describe("npx netlify-indieauth in a blog", () => {
  it("lists its commands, dev among them", async () => {
    const help = await shell(blog, "npx netlify-indieauth --help");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("dev [--port N]");
    expect(help.stdout).toContain("hash-password");
    expect(help.stdout).not.toMatch(REPOSITORY_COMMANDS);
  }, 120_000);

  it("check-config names the blog's commands: for production, and to make a PASSWORD_HASH", async () => {
    writeFileSync(join(blog, ".env"), `ME=http://localhost:8888/\nSECRET=${TEST_SECRET}\n`);
    const missing = await shell(blog, "npx netlify-indieauth check-config");
    expect(missing.status).toBe(1);
    expect(missing.stdout).toContain("For production: CONTEXT=production npx netlify-indieauth check-config");
    expect(missing.stderr).toContain("PASSWORD_HASH is missing");
    expect(missing.stderr).toContain("fix: Make one with: npx netlify-indieauth hash-password, and set PASSWORD_HASH");
    expect(missing.stdout + missing.stderr).not.toMatch(REPOSITORY_COMMANDS);

    const bcrypt = await shell(blog, "npx netlify-indieauth check-config", { PASSWORD_SECRET: "not a bcrypt hash" });
    expect(bcrypt.status).toBe(1);
    expect(bcrypt.stderr).toContain("set PASSWORD_HASH from npx netlify-indieauth hash-password instead");
    expect(bcrypt.stdout + bcrypt.stderr).not.toMatch(REPOSITORY_COMMANDS);

    // The production check it names exists and runs.
    const production = await shell(blog, "CONTEXT=production npx netlify-indieauth check-config", {
      ...(await testEnv()),
    });
    expect(production.status, production.stderr).toBe(0);
    expect(production.stdout).toContain("Configuration is valid");
  }, 180_000);

  it("the build plugin's fix names the blog's command too", async () => {
    const result = netlifyBuild(blog, {
      ...(await testEnv({ BASE_URL: undefined, PASSWORD_HASH: undefined })),
      URL: "https://jane.example",
      CONTEXT: "production",
    });
    expect(result.status).not.toBe(0);
    const output = result.stdout + result.stderr;
    expect(output).toContain("npx netlify-indieauth hash-password");
    expect(output).not.toMatch(REPOSITORY_COMMANDS);
  }, 300_000);

  it("dev on a busy port stops before the build and names the way out", async () => {
    const port = await freePort();
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(port, "127.0.0.1", resolve));
    const before = readdirSync(join(blog, "public"), { recursive: true }).sort();
    const hadNetlifyFolder = existsSync(join(blog, ".netlify", "v1"));
    try {
      const result = await shell(blog, `npx netlify-indieauth dev --port ${port}`);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`Port ${port} is busy`);
      expect(result.stderr).toContain(`npx netlify-indieauth dev --port ${port + 1}`);
      // Nothing was built: no pages added to the publish folder, no functions written.
      expect(readdirSync(join(blog, "public"), { recursive: true }).sort()).toEqual(before);
      expect(existsSync(join(blog, ".netlify", "v1"))).toBe(hadNetlifyFolder);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 120_000);

  it("dev with a port that is not one says so", async () => {
    const result = await shell(blog, "npx netlify-indieauth dev --port eighty");
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Not a port number (1-65535): "eighty"');
    expect(result.stderr).toContain("npx netlify-indieauth dev --port 9000");
  }, 120_000);
});

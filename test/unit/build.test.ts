// `npm run build`: a production build with an incomplete environment stops and says what to
// set; a development build only warns.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const script = new URL("../../scripts/build.ts", import.meta.url).pathname;

function build(env: Record<string, string>) {
  // Run in an empty folder so that no .env is read; the output goes to the repository's dist/.
  const cwd = mkdtempSync(join(tmpdir(), "build-"));
  try {
    return spawnSync(process.execPath, [tsx, script], {
      cwd,
      env: { PATH: process.env.PATH ?? "", ...env },
      encoding: "utf8",
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe("npm run build", () => {
  it("stops a production build that lacks a variable, naming it", () => {
    const result = build({ CONTEXT: "production", ME: "https://jane.example/", URL: "https://auth.jane.example" });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("error: SECRET is missing");
    expect(result.stderr).toContain("PASSWORD_HASH is missing");
  });

  it("only warns outside production", () => {
    const result = build({ CONTEXT: "deploy-preview", ME: "https://jane.example/", URL: "https://auth.jane.example" });
    expect(result.status).toBe(0);
    expect(result.stderr).toContain("warning: SECRET is missing");
    // ...and prebuilds the functions where netlify.toml's [functions] directory says.
    expect(result.stdout).toMatch(/ and \.netlify\/indieauth\/functions \(account, approve, auth, cleanup, /);
  });
});

describe("the home page's discovery links", () => {
  const tagPattern = /<link rel="(indieauth-metadata|authorization_endpoint|token_endpoint)" href="([^"]+)">/g;

  async function homePages(env: Record<string, string>) {
    const { buildSite } = await import("../../scripts/build.ts");
    const { testEnv } = await import("../helpers/env.ts");
    const { readFile } = await import("node:fs/promises");
    const out = mkdtempSync(join(tmpdir(), "site-"));
    try {
      await buildSite(await testEnv({ ...env, CONTEXT: "dev" }), out);
      return {
        root: await readFile(join(out, "index.html"), "utf8"),
        pages: await readFile(join(out, "indieauth", "index.html"), "utf8"),
      };
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }

  it("are in the root page's <head> when ME is this deployment's own root (local development)", async () => {
    const { root, pages } = await homePages({ ME: "http://localhost:8888/", BASE_URL: "http://localhost:8888" });
    expect([...root.matchAll(tagPattern)].map((m) => [m[1], m[2]])).toEqual([
      ["indieauth-metadata", "http://localhost:8888/.well-known/oauth-authorization-server"],
      ["authorization_endpoint", "http://localhost:8888/auth"],
      ["token_endpoint", "http://localhost:8888/token"],
    ]);
    expect([...pages.matchAll(tagPattern)]).toEqual([]);
  });

  it("are not added when ME is another site", async () => {
    const { root } = await homePages({});
    expect([...root.matchAll(tagPattern)]).toEqual([]);
  });
});

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
    return spawnSync(process.execPath, [tsx, script], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" });
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
  });
});

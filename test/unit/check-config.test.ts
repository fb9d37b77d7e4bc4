// `npm run check-config`: each problem with its fix, and a zero exit only when all is well.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { testEnv } from "../helpers/env.ts";

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const script = new URL("../../scripts/check-config.ts", import.meta.url).pathname;

function run(env: Record<string, string | undefined>, dotEnv?: string) {
  const clean: Record<string, string> = { PATH: process.env.PATH ?? "" };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) clean[key] = value;
  // A folder without .env (unless given), so that only the given environment counts.
  const cwd = mkdtempSync(join(tmpdir(), "check-config-"));
  if (dotEnv !== undefined) writeFileSync(join(cwd, ".env"), dotEnv);
  return spawnSync(process.execPath, [tsx, script], { env: clean, cwd, encoding: "utf8" });
}

describe("npm run check-config", () => {
  it("passes a valid environment and says who you sign in as", async () => {
    const result = run(await testEnv());
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("https://jane.example/");
  });

  it("lists every problem with its fix and exits 1", async () => {
    const result = run(await testEnv({ SECRET: undefined, ME: undefined }));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("ME is missing");
    expect(result.stderr).toContain("SECRET is missing");
    expect(result.stderr.match(/fix: /g)).toHaveLength(2);
    // Each fix once: the problem says what is wrong, the fix what to do.
    expect(result.stderr.match(/openssl rand/g)).toHaveLength(1);
  });

  it("in this repository names its npm scripts (the package's command is for blogs)", async () => {
    const { SECRET } = await testEnv();
    const result = run({}, `ME=http://localhost:8888/\nSECRET=${SECRET}\n`);
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("For production: CONTEXT=production npm run check-config");
    expect(result.stderr).toContain("fix: Make one with: npm run hash-password, and set PASSWORD_HASH");
    expect(result.stdout + result.stderr).not.toContain("npx netlify-indieauth");
  });

  it("says whether alerts are on and where they go (the host only), and names a bad NOTIFY_URL", async () => {
    const on = run(await testEnv({ NOTIFY_URL: "https://ntfy.sh/jane-secret-topic" }));
    expect(on.status).toBe(0);
    expect(on.stdout).toMatch(/alerts +on: ntfy messages to ntfy\.sh\n/);
    expect(on.stdout).not.toContain("jane-secret-topic");
    expect(run(await testEnv()).stdout).toMatch(/alerts +off \(NOTIFY_URL is not set\)/);
    const bad = run(await testEnv({ NOTIFY_URL: "http://hooks.jane.example/in" }));
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("NOTIFY_URL must use https");
  });
});

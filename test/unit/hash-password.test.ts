// `npm run hash-password` with the password on standard input (not a terminal): it prints
// only the hash, which then verifies.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parsePasswordHash, verifyPassword } from "../../netlify/lib/owner/password.ts";

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const script = new URL("../../scripts/hash-password.ts", import.meta.url).pathname;

function run(input: string) {
  return spawnSync(process.execPath, [tsx, script], { input, encoding: "utf8" });
}

describe("npm run hash-password", () => {
  it("reads the password from stdin and prints only a hash that verifies", async () => {
    const result = run("a long enough password\n");
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const parsed = parsePasswordHash(lines[0]!);
    if ("error" in parsed) throw new Error(parsed.error);
    expect(await verifyPassword("a long enough password", parsed)).toBe(true);
  });

  it("refuses a password shorter than 8 characters and prints nothing", () => {
    const result = run("short");
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("at least 8");
  });
});

// `npm run hash-password`: with the password on standard input (not a terminal) it prints only
// the hash, which then verifies; on a terminal (a real pseudo-terminal through util-linux's
// `script`) it checks the password at the first prompt, before asking to repeat it. Passwords
// that are short, common or otherwise quickly guessed are refused with a message that says why.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { parsePasswordHash } from "../../netlify/lib/core/password-hash.ts";
import { verifyPassword } from "../../netlify/lib/owner/password.ts";
import { checkPasswordStrength } from "../../scripts/password-strength.ts";

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const script = new URL("../../scripts/hash-password.ts", import.meta.url).pathname;

function run(input: string) {
  return spawnSync(process.execPath, [tsx, script], { input, encoding: "utf8" });
}

/** The command on a pseudo-terminal: type a line once a prompt shows, read what it wrote. */
function onTerminal() {
  const child = spawn("script", ["-qfec", `"${process.execPath}" "${tsx}" "${script}"`, "/dev/null"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let shown = "";
  /** Where the output not yet waited for starts. */
  let read = 0;
  let wake = () => {};
  child.stdout.on("data", (chunk: Buffer) => {
    shown += chunk.toString("utf8");
    wake();
  });
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => ((ended = true), wake(), resolve(code))),
  );
  return {
    shown: () => shown,
    /** The output since the last wait, once it ends with the pattern (or the command ended). */
    async next(pattern: RegExp): Promise<string> {
      while (!pattern.test(shown.slice(read)) && !ended) await new Promise<void>((resolve) => (wake = resolve));
      const fresh = shown.slice(read);
      read = shown.length;
      return fresh;
    },
    type: (line: string) => child.stdin.write(`${line}\r`),
    exited,
  };
}

describe("npm run hash-password, from standard input", () => {
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

  it("refuses a common password with a message that says why, and prints nothing", () => {
    const result = run("password");
    expect(result.status).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("too easy to guess: it is one of the ten most common passwords");
  });
});

describe("the strength check hash-password applies", () => {
  it.each([
    ["password", "one of the ten most common passwords"],
    ["qwertyuiop", "common passwords"],
    ["Password1!", "a common password with small changes"],
    ["iloveyou2024", "a common password with small changes"],
    ["aaaaaaaaaaaa", 'repeated characters like "aaa"'],
    ["abcdefghijk", "easy to guess"],
    ["12345678910", "easy to guess"],
  ])("refuses %j: %s", async (password, why) => {
    const verdict = await checkPasswordStrength(password);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.problem).toContain("too easy to guess");
    expect(!verdict.ok && verdict.problem).toContain(why);
  });

  it.each(["correct horse battery staple", "jane.example sign-in 2026", "xK9#mQ2$vL7p"])(
    "accepts %j",
    async (password) => {
      expect(await checkPasswordStrength(password)).toEqual({ ok: true });
    },
  );
});

describe("npm run hash-password, on a terminal", () => {
  it("says what is wrong at the first prompt and asks again, before ever asking to repeat it", async () => {
    const terminal = onTerminal();
    await terminal.next(/Password: $/);
    terminal.type("short");
    expect(await terminal.next(/Password: $/)).toMatch(/at least 8 characters\.\r?\nPassword: $/);
    terminal.type("password");
    expect(await terminal.next(/Password: $/)).toMatch(/too easy to guess: it is one of the ten most common passwords/);
    expect(terminal.shown()).not.toContain("Again");
    terminal.type("correct horse battery staple");
    await terminal.next(/Again: $/);
    terminal.type("correct horse battery staple");
    expect(await terminal.exited).toBe(0);
    expect(terminal.shown()).toMatch(/\$scrypt\$ln=15/);
    // Never echoed: the password shows nowhere on the terminal.
    expect(terminal.shown()).not.toContain("correct horse");
  });

  it("gives up after three refused passwords and prints nothing", async () => {
    const terminal = onTerminal();
    for (const weak of ["123", "password", "letmein1"]) {
      await terminal.next(/Password: $/);
      terminal.type(weak);
    }
    expect(await terminal.exited).toBe(1);
    expect(terminal.shown()).toContain("Nothing was printed.");
    expect(terminal.shown()).not.toContain("Again");
    expect(terminal.shown()).not.toContain("$scrypt$");
  });
});

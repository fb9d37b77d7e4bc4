// `npm start` as a newcomer meets it: a busy port changes nothing and says how to pick another;
// a .env written for another port does not pin the old address; two servers started from one
// checkout keep their own pages and netlify-cli folders (the first answers every request while
// the second starts); the output says what runs where, without netlify-cli's noise, and ends with
// a sign-in by hand for its own port that works when pasted.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_PASSWORD, TEST_SECRET, testPasswordHash } from "../helpers/env.ts";
import { freePort } from "../helpers/netlify-dev.ts";
import { connectTo, nonLoopbackAddress } from "../helpers/other-address.ts";
import { followPrintedSignIn } from "../helpers/printed-sign-in.ts";
import { stopProcessGroup } from "../helpers/process-group.ts";
import { functionStatusesUntil, servedModules } from "../helpers/side-by-side.ts";

const packageRoot = new URL("../..", import.meta.url).pathname;

const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const script = new URL("../../scripts/dev.ts", import.meta.url).pathname;
const VARIABLES = [
  "ME",
  "SECRET",
  "PASSWORD_HASH",
  "PASSWORD_SECRET",
  "PROFILE_NAME",
  "PROFILE_PHOTO",
  "PROFILE_EMAIL",
  "PROFILE_URL",
  "BASE_URL",
  "ACCESS_TOKEN_TTL",
  "REFRESH_TOKEN_TTL",
  "INTROSPECTION_TOKEN",
  "PASSWORD_LOGIN",
  "INDIEAUTH_STORE",
  "NETLIFY_BLOBS_CONTEXT",
];

/** The environment of a terminal with none of the server's variables set. */
function terminalEnv(port: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !VARIABLES.includes(key)) env[key] = value;
  return { ...env, PORT: String(port), INDIEAUTH_STORE: `test-${randomUUID()}` };
}

interface Started {
  child: ChildProcess;
  output: () => string;
}
const running: Started[] = [];

function start(cwd: string, port: number): Started {
  const child = spawn(process.execPath, [tsx, script], {
    cwd,
    env: terminalEnv(port),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const started = { child, output: () => log };
  running.push(started);
  return started;
}

async function untilReady(port: number, started: Started): Promise<void> {
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`npm start exited:\n${started.output()}`);
    const answered = await fetch(`http://localhost:${port}/.well-known/oauth-authorization-server`, {
      signal: AbortSignal.timeout(5000),
    }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (answered && started.output().includes("Ready:")) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`npm start did not become ready:\n${started.output()}`);
}

afterAll(async () => {
  for (const { child } of running) await stopProcessGroup(child);
});

describe("npm start", () => {
  it("on a busy port changes nothing and names the way out", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "npm-start-"));
    const port = await freePort();
    const busy: Server = createServer();
    await new Promise<void>((resolve) => busy.listen(port, "127.0.0.1", resolve));
    try {
      const result = spawnSync(process.execPath, [tsx, script], {
        cwd,
        env: terminalEnv(port),
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`Port ${port} is busy`);
      expect(result.stderr).toContain(`PORT=${port + 1} npm start`);
      // No .env written, no pages built.
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  }, 90_000);

  it("serves this port's own address, keeps another server's pages, and speaks plainly", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "npm-start-"));
    // A .env that an earlier `npm start` wrote for port 8888.
    const envFile = [
      "# Written by `npm start` for local development. Never commit this file.",
      "ME=http://localhost:8888/",
      `SECRET=${TEST_SECRET}`,
      `PASSWORD_HASH='${await testPasswordHash()}'`,
      "PROFILE_NAME=Local Developer",
      "",
    ].join("\n");
    writeFileSync(join(cwd, ".env"), envFile);
    const [first, second] = [await freePort(), await freePort()];

    const a = start(cwd, first);
    await untilReady(first, a);
    // The first server's function modules, as netlify-cli wrote them (in the checkout, or in
    // this package's folder, wherever it runs).
    const where = [join(cwd, ".netlify"), join(packageRoot, ".netlify")];
    const before = servedModules(...where);
    expect(before.size).toBeGreaterThan(0);

    // The second starts while the first is in use: every function answer stays right.
    const b = start(cwd, second);
    const statuses = await functionStatusesUntil(`http://localhost:${first}`, untilReady(second, b));
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // Nothing the first server loads was rewritten by the second.
    const after = servedModules(...where);
    for (const [path, written] of before) expect({ path, written: after.get(path) }).toEqual({ path, written });

    const home = async (port: number) => (await fetch(`http://localhost:${port}/`)).text();
    const [pageA, pageB] = await Promise.all([home(first), home(second)]);
    expect(pageA).toContain(`http://localhost:${first}/auth`);
    expect(pageA).not.toContain(`localhost:${second}`);
    expect(pageB).toContain(`http://localhost:${second}/auth`);
    expect(pageA + pageB).not.toContain("localhost:8888");
    expect(existsSync(join(cwd, ".netlify", "indieauth-dev", String(first)))).toBe(true);

    const output = a.output();
    expect(output).toContain(`this run uses ME=http://localhost:${first}/`);
    expect(output).toMatch(/you sign in as\s+http:\/\/localhost:\d+\//);
    expect(output).toContain(`Ready: http://localhost:${first}/`);
    // This machine only, unless told (npm start -- --host 0.0.0.0), and it says so.
    expect(output).toContain(
      "Listening on 127.0.0.1 only: nothing but this machine can reach it (npm start -- --host 0.0.0.0 opens it to your network).",
    );
    const other = nonLoopbackAddress();
    if (other) expect(await connectTo(other, first)).toBe("refused");
    expect(output).not.toContain("Ignored .env file env var");
    expect(output).not.toContain("Edge functions are disabled");

    // The sign-in by hand it prints is for its own port, and works as pasted.
    const printed = await followPrintedSignIn(b.output(), `http://localhost:${second}`, TEST_PASSWORD);
    expect(printed.url).not.toContain("8888");
    expect(printed.redeemed).toMatchObject({ me: `http://localhost:${second}/`, scope: "profile create" });
    expect(printed.redeemed.access_token).toEqual(expect.any(String));
  }, 600_000);
});

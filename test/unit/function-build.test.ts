// The functions as they deploy (scripts/build-functions.ts): each prebuilt into its own folder,
// with an entry module whose config Netlify reads without running code, and with the heavy
// packages only in chunks that load when a request needs them.
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFunctions, functionNames, type BuiltFunction } from "../../scripts/build-functions.ts";

let out: string;
let built: Map<string, BuiltFunction>;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "indieauth-function-build-"));
  built = new Map((await buildFunctions(out)).map((f) => [f.name, f]));
}, 120_000);
afterAll(() => rm(out, { recursive: true, force: true }));

const HEAVY = ["@simplewebauthn/server", "microformats-parser", "parse5", "bcryptjs"];

describe("prebuilt functions", () => {
  it("builds one folder per function source", async () => {
    expect([...built.keys()]).toEqual(await functionNames());
    expect([...built.keys()]).toEqual(expect.arrayContaining(["auth", "approve", "token", "introspect", "revoke", "userinfo", "metadata", "passkeys", "account", "self-test", "cleanup"]));
  });

  it("writes each entry module with a literal config that ships the folder as built", async () => {
    for (const name of built.keys()) {
      const entry = await readFile(join(out, name, `${name}.mjs`), "utf8");
      expect(entry).toContain('export { default } from "./handler.mjs";');
      const config = JSON.parse(/^export const config = (.*);$/m.exec(entry)![1]!) as Record<string, unknown>;
      expect(config).toMatchObject({ nodeBundler: "none", includedFiles: ["handler.mjs", "chunks/**"] });
      expect(config.schedule).toBe(name === "cleanup" ? "@hourly" : undefined);
    }
  });

  it("loads none of the heavy packages at cold start", () => {
    for (const f of built.values()) expect(f.coldStartPackages.filter((p) => HEAVY.includes(p)), f.name).toEqual([]);
  });

  it("keeps WebAuthn to the functions with a passkey ceremony, and the HTML parser to those that fetch pages, on demand", () => {
    const onDemand = (pkg: string) => [...built.values()].filter((f) => f.onDemandPackages.includes(pkg)).map((f) => f.name);
    expect(onDemand("@simplewebauthn/server")).toEqual(["account", "approve", "passkeys"]);
    expect(onDemand("microformats-parser")).toEqual(["auth", "self-test"]);
  });

  it("imports with no environment at all (the top level of a function reads nothing)", () => {
    for (const name of ["token", "auth", "passkeys"]) {
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", "const m = await import(process.argv[1]); process.stdout.write(typeof m.default);", pathToFileURL(join(out, name, `${name}.mjs`)).href], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "" },
      });
      expect(run.stderr, name).toBe("");
      expect(run.stdout, name).toBe("function");
    }
  });

  it("names and routes functions as the build plugin asks", async () => {
    const dir = join(out, "plugin");
    const [auth] = (await buildFunctions(dir, { prefix: "indieauth-", config: (name) => (name === "auth" ? { path: ["/auth"] } : undefined) })).filter((f) => f.name === "indieauth-auth");
    const entry = await readFile(join(auth!.dir, "indieauth-auth.mjs"), "utf8");
    expect(JSON.parse(/^export const config = (.*);$/m.exec(entry)![1]!)).toMatchObject({ path: ["/auth"], nodeBundler: "none" });
  }, 120_000);
});

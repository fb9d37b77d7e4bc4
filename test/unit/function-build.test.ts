// The functions as they deploy (scripts/build-functions.ts): each prebuilt into its own folder,
// with an entry module whose config Netlify reads without running code, and with the heavy
// packages only in chunks that load when a request needs them.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFunctions, functionNames, type BuiltFunction } from "../../scripts/build-functions.ts";

let out: string;
let built: Map<string, BuiltFunction>;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "indieauth-function-build-"));
  built = new Map((await buildFunctions(out)).map((f) => [f.name, f]));
}, 120_000);
afterAll(() => rm(out, { recursive: true, force: true }));

const lib = (path: string) => JSON.stringify(fileURLToPath(new URL(`../../netlify/lib/${path}`, import.meta.url)));

/** Exercises every package that a deployed function imports on use: cookie (CommonJS), jose,
 * microformats-parser (CommonJS), ipaddr.js (CommonJS), bcryptjs, tldts. */
const PROBE_SOURCE = `
import { startSession, currentSession, clearSessionCookies } from ${lib("owner/sessions.ts")};
import { parseMicroformats } from ${lib("clients/microformats.ts")};
import { publicOnlyPolicy } from ${lib("clients/address-guard.ts")};
import { verifyPassword } from ${lib("owner/password.ts")};
import { registrableDomain } from ${lib("clients/fetch-failures.ts")};

const records = new Map();
const store = {
  get: async (key) => records.get(key) ?? null,
  setIfNew: async (key, value) => (records.has(key) ? false : (records.set(key, value), true)),
  set: async (key, value) => void records.set(key, value),
};
const settings = { issuer: "https://auth.jane.example/", development: false, keys: { session: new Uint8Array(32).fill(7) } };

export default async () => {
  const now = Date.now();
  const { setCookies } = await startSession(store, settings, { method: "password", persistent: false, ip: "203.0.113.9", userAgent: "probe" }, now);
  const cookie = setCookies[0].split(";")[0];
  const request = new Request("https://auth.jane.example/indieauth/api/account", { headers: { cookie } });
  const parsed = await parseMicroformats('<link rel="redirect_uri" href="/callback">', "https://app.example/", { rels: ["redirect_uri"], roots: ["h-app"] });
  const policy = await publicOnlyPolicy();
  return {
    cookie: (await clearSessionCookies(settings))[0].split(";")[0],
    sessionBack: (await currentSession(store, request, settings, now)) !== null,
    microformats: parsed?.rels.redirect_uri ?? null,
    publicAddress: policy("8.8.8.8"),
    privateAddress: policy("10.0.0.1"),
    bcrypt: await verifyPassword("x", { kind: "bcrypt", hash: "$2b$04$WOR70eUWV4A3hL0JwB/jHOKHQU6lZDjcWCPYORlpg2Onj8sjiZoEa" }),
    domain: await registrableDomain("a1.evil.example"),
  };
};
`;

/** Packages that load only in the request that needs them: WebAuthn (a ceremony), the HTML parser
 * (a client's page), bcrypt (a bcrypt hash), jose (a signed object), ipaddr.js (a fetch), cookie,
 * the Public Suffix List (a client's page about to be fetched). */
const HEAVY = [
  "@simplewebauthn/server",
  "microformats-parser",
  "parse5",
  "bcryptjs",
  "jose",
  "ipaddr.js",
  "cookie",
  "tldts",
];

describe("prebuilt functions", () => {
  it("builds one folder per function source", async () => {
    expect([...built.keys()]).toEqual(await functionNames());
    expect([...built.keys()]).toEqual(
      expect.arrayContaining([
        "auth",
        "approve",
        "token",
        "introspect",
        "revoke",
        "userinfo",
        "metadata",
        "register",
        "passkeys",
        "account",
        "self-test",
        "cleanup",
      ]),
    );
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
    for (const f of built.values())
      expect(
        f.coldStartPackages.filter((p) => HEAVY.includes(p)),
        f.name,
      ).toEqual([]);
  });

  it("loads one module file of its own at cold start, the handler: no chunk (each file costs about a millisecond)", async () => {
    for (const f of built.values()) {
      expect(f.coldStartFiles, f.name).toEqual(["handler.mjs"]);
      // The file as written: no static import of a chunk (only import() of one).
      const handler = await readFile(join(f.dir, "handler.mjs"), "utf8");
      expect(handler, f.name).not.toMatch(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[^;()]*?from\s*)?["']\.\/chunks\//);
    }
  });

  it("keeps WebAuthn to the functions with a passkey ceremony, and the HTML parser to those that fetch pages, on demand", () => {
    const onDemand = (pkg: string) =>
      [...built.values()].filter((f) => f.onDemandPackages.includes(pkg)).map((f) => f.name);
    expect(onDemand("@simplewebauthn/server")).toEqual(["account", "approve", "passkeys"]);
    // token reads a client's page only to redeem a code issued while it could not be read.
    expect(onDemand("microformats-parser")).toEqual(["auth", "self-test", "token"]);
    expect(onDemand("tldts")).toEqual(["auth"]);
  });

  it("imports with no environment at all (the top level of a function reads nothing)", () => {
    for (const name of ["token", "auth", "passkeys", "register"]) {
      const run = spawnSync(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          "const m = await import(process.argv[1]); process.stdout.write(typeof m.default);",
          pathToFileURL(join(out, name, `${name}.mjs`)).href,
        ],
        {
          encoding: "utf8",
          env: { PATH: process.env.PATH ?? "" },
        },
      );
      expect(run.stderr, name).toBe("");
      expect(run.stdout, name).toBe("function");
    }
  });

  it("runs each package a function loads on demand as it runs under Node (CommonJS ones included)", async () => {
    // A function of the same build whose handler takes the paths that load packages on use.
    const sources = join(out, "probe-sources");
    await mkdir(sources);
    await writeFile(join(sources, "probe.ts"), PROBE_SOURCE);
    await buildFunctions(join(out, "probe-built"), { sources });
    const run = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "const { default: probe } = await import(process.argv[1]); process.stdout.write(JSON.stringify(await probe()));",
        pathToFileURL(join(out, "probe-built", "probe", "probe.mjs")).href,
      ],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "" },
      },
    );
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({
      cookie: "__Secure-indieauth_session=",
      sessionBack: true,
      microformats: ["https://app.example/callback"],
      publicAddress: true,
      privateAddress: false,
      bcrypt: true,
      domain: "evil.example",
    });
  }, 120_000);

  it("names and routes functions as the build plugin asks", async () => {
    const dir = join(out, "plugin");
    const [auth] = (
      await buildFunctions(dir, {
        prefix: "indieauth-",
        config: (name) => (name === "auth" ? { path: ["/auth"] } : undefined),
      })
    ).filter((f) => f.name === "indieauth-auth");
    const entry = await readFile(join(auth!.dir, "indieauth-auth.mjs"), "utf8");
    expect(JSON.parse(/^export const config = (.*);$/m.exec(entry)![1]!)).toMatchObject({
      path: ["/auth"],
      nodeBundler: "none",
    });
  }, 120_000);
});

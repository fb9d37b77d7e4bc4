// The local commands, short of running a server: `npx netlify-indieauth dev`'s arguments, addresses and
// netlify-cli command line, its check of the publish folder before it builds; the address the local
// servers listen on; the sign-in by hand printed for a port; and how messages name commands.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localAddresses, parseDevArguments, serveArguments } from "../../scripts/blog-dev-plan.ts";
import { commandFor } from "../../scripts/commands.ts";
import { DEV_ADDRESSES_VARIABLE, devAddressesValue, takeDevAddresses } from "../../scripts/dev-addresses.ts";
import { committableEnvFiles, envNotIgnored } from "../../scripts/env-ignored.ts";
import { serveOutputFilter } from "../../scripts/serve-output.ts";
import { CODE_VERIFIER, readyMessage, redeemCommand, signInUrl } from "../../scripts/local-sign-in.ts";
import { listeningNote, listenOn, parseHost, parsePort } from "../../scripts/ports.ts";
import { freePort } from "../helpers/netlify-dev.ts";

describe("npx netlify-indieauth dev: arguments", () => {
  it("takes --port N, --port=N and -p N, else PORT, else 8888", () => {
    const here = { host: "127.0.0.1" };
    expect(parseDevArguments(["--port", "9000"])).toEqual({ port: 9000, ...here });
    expect(parseDevArguments(["--port=9001"])).toEqual({ port: 9001, ...here });
    expect(parseDevArguments(["-p", "9002"])).toEqual({ port: 9002, ...here });
    expect(parseDevArguments([], { PORT: "9003" })).toEqual({ port: 9003, ...here });
    expect(parseDevArguments(["--port", "9004"], { PORT: "9003" })).toEqual({ port: 9004, ...here });
    expect(parseDevArguments([])).toEqual({ port: 8888, ...here });
  });

  it("listens on this machine only unless told with --host, and takes only an IP address there", () => {
    expect(parseDevArguments(["--host", "0.0.0.0"])).toEqual({ port: 8888, host: "0.0.0.0" });
    expect(parseDevArguments(["--host=::", "--port", "9000"])).toEqual({ port: 9000, host: "::" });
    expect(parseDevArguments(["--host", "localhost"])).toEqual({ port: 8888, host: "127.0.0.1" });
    for (const bad of [["--host"], ["--host", "my laptop"], ["--host=example.com"]]) {
      expect(parseDevArguments(bad)).toEqual({
        error: expect.stringContaining("npx netlify-indieauth dev --host 0.0.0.0"),
      });
    }
    expect(parseHost(" 192.0.2.7 ")).toBe("192.0.2.7");
    expect(listeningNote("127.0.0.1", "npm start -- --host")).toBe(
      "Listening on 127.0.0.1 only: nothing but this machine can reach it (npm start -- --host 0.0.0.0 opens it to your network).",
    );
    expect(listeningNote("0.0.0.0", "npm start -- --host")).toContain(
      "other machines on your network can reach this server and its sign-in",
    );
    expect(readyMessage("http://localhost:9000", listeningNote("127.0.0.1", "x")).split("\n").slice(1, 3)).toEqual([
      "Ready: http://localhost:9000/  (Ctrl+C stops it)",
      listeningNote("127.0.0.1", "x"),
    ]);
  });

  it("refuses what is not a port, or an argument it does not know, saying how to write it", () => {
    for (const bad of [["--port"], ["--port", "0"], ["--port", "65536"], ["--port", "80a"], ["--port=-1"]]) {
      expect(parseDevArguments(bad)).toEqual({
        error: expect.stringContaining("npx netlify-indieauth dev --port 9000"),
      });
    }
    expect(parseDevArguments(["--prot", "9000"])).toEqual({
      error: expect.stringContaining("Usage: npx netlify-indieauth dev [--port N]"),
    });
    expect(parsePort(" 8888 ")).toBe(8888);
    expect(parsePort("1e3")).toBeUndefined();
  });

  it("runs netlify serve in the development context, offline, without edge functions, on the ports given", () => {
    const args = serveArguments({ port: 9000, staticPort: 40001, functionsPort: 40002 });
    expect(args[0]).toBe("serve");
    expect(args.join(" ")).toContain("--context dev --offline --internal-disable-edge-functions --port 9000");
    expect(args.join(" ")).toContain("--staticServerPort 40001 --functions-port 40002");
  });
});

describe("npx netlify-indieauth dev: the publish folder, before anything is built", () => {
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  const script = new URL("../../scripts/blog-dev.ts", import.meta.url).pathname;

  /** Runs the command in a blog folder whose netlify.toml loads the plugin with `build`. */
  async function devIn(build: string, prepare: (blog: string) => void = () => {}) {
    const blog = mkdtempSync(join(tmpdir(), "indieauth-dev-"));
    try {
      writeFileSync(join(blog, "netlify.toml"), `${build}\n[[plugins]]\n  package = "netlify-indieauth"\n`);
      writeFileSync(join(blog, ".env"), "SECRET=a-secret-of-the-server-that-is-long-enough-0123456789\n");
      prepare(blog);
      const before = readdirSync(blog).sort();
      const result = spawnSync(process.execPath, [tsx, script, "--port", String(await freePort())], {
        cwd: blog,
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "" },
        timeout: 60_000,
      });
      return { ...result, unchanged: JSON.stringify(readdirSync(blog).sort()) === JSON.stringify(before) };
    } finally {
      rmSync(blog, { recursive: true, force: true });
    }
  }

  it('refuses to serve the blog\'s own folder (publish = ".", or no publish at all, as on Netlify)', async () => {
    for (const build of ['[build]\n  publish = "."\n', ""]) {
      const result = await devIn(build);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        'Nothing was built or served: the publish folder "." would serve what must stay private',
      );
      expect(result.unchanged).toBe(true);
    }
  });

  it("refuses a plain folder of HTML holding a copy of the secret", async () => {
    const result = await devIn('[build]\n  publish = "public"\n', (blog) => {
      mkdirSync(join(blog, "public"));
      writeFileSync(join(blog, "public", "index.html"), "<p>home</p>\n");
      writeFileSync(
        join(blog, "public", "env-backup.txt"),
        "SECRET=a-secret-of-the-server-that-is-long-enough-0123456789\n",
      );
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("- env-backup.txt: holds the value of SECRET");
  });
});

describe("npx netlify-indieauth dev: the server's addresses", () => {
  it("tells the server its own origin, unless the shell sets BASE_URL", () => {
    expect(localAddresses(9000, { ME: "http://localhost:9000/" }, {}).env).toEqual({
      BASE_URL: "http://localhost:9000",
    });
    expect(localAddresses(9000, { ME: "http://localhost:9000/" }, { BASE_URL: "http://localhost:7000" }).env).toEqual(
      {},
    );
  });

  it("moves a local ME from .env to this port, and says so; leaves a real site's ME and the shell's alone", () => {
    const moved = localAddresses(9000, { ME: "http://localhost:8888/" }, {});
    expect(moved.env.ME).toBe("http://localhost:9000/");
    expect(moved.notes).toEqual([
      ".env has ME=http://localhost:8888/, for another port; this run uses ME=http://localhost:9000/.",
    ]);
    expect(localAddresses(9000, { ME: "https://jane.example/" }, {}).env.ME).toBeUndefined();
    expect(localAddresses(9000, {}, { ME: "http://localhost:8888/" }).env.ME).toBeUndefined();
  });

  it("with an auth host (INDIEAUTH_HOST=auth.localhost:N in .env), tells the server that host, and refuses another port than N", () => {
    expect(localAddresses(9000, { ME: "http://localhost:9000/", INDIEAUTH_HOST: "auth.localhost:9000" }, {})).toEqual({
      env: { BASE_URL: "http://auth.localhost:9000" },
      notes: [],
    });
    // netlify serve's build reads .env over the shell: a host for another port cannot be moved.
    expect(localAddresses(9000, { INDIEAUTH_HOST: "auth.localhost:8888" }, {}).error).toBe(
      "INDIEAUTH_HOST=auth.localhost:8888 is not on this port: change it in .env to auth.localhost:9000, or run on its port (npx netlify-indieauth dev --port N, N its port).",
    );
  });

  it("signs you in as the blog's local home page when ME is not set", () => {
    const { env, notes } = localAddresses(9000, {}, {});
    expect(env.ME).toBe("http://localhost:9000/");
    expect(notes[0]).toContain("ME is not set");
  });
});

describe("npx netlify-indieauth dev: the run's addresses in the build plugin", () => {
  // netlify serve's build reads .env over the shell: the plugin takes the run's values from a
  // variable of their own, or the pages would say .env's port while the tokens say the run's.
  it("sets the run's ME and BASE_URL over .env's, and says so", () => {
    const build: NodeJS.ProcessEnv = {
      CONTEXT: "dev",
      ME: "http://localhost:8888/",
      SECRET: "kept",
      [DEV_ADDRESSES_VARIABLE]: devAddressesValue({
        ME: "http://localhost:9000/",
        BASE_URL: "http://localhost:9000",
        SECRET: "not carried",
      }),
    };
    expect(takeDevAddresses(build)).toEqual([
      "ME=http://localhost:9000/ for this run of npx netlify-indieauth dev (not http://localhost:8888/, from .env)",
      "BASE_URL=http://localhost:9000 for this run of npx netlify-indieauth dev",
    ]);
    expect(build).toMatchObject({ ME: "http://localhost:9000/", BASE_URL: "http://localhost:9000", SECRET: "kept" });
    expect(takeDevAddresses(build)).toEqual([]);
  });

  it("changes nothing in production, nor for a value that is not the command's", () => {
    const value = devAddressesValue({ ME: "http://localhost:9000/" });
    const production: NodeJS.ProcessEnv = {
      CONTEXT: "production",
      ME: "https://jane.example/",
      [DEV_ADDRESSES_VARIABLE]: value,
    };
    expect(takeDevAddresses(production)).toEqual([]);
    expect(production.ME).toBe("https://jane.example/");
    const garbled: NodeJS.ProcessEnv = { ME: "https://jane.example/", [DEV_ADDRESSES_VARIABLE]: "{not json" };
    expect(takeDevAddresses(garbled)).toEqual([]);
    expect(garbled.ME).toBe("https://jane.example/");
  });
});

describe("npx netlify-indieauth dev: a .env git would commit", () => {
  it("is found in a repository that does not ignore it (netlify-cli's own .gitignore names .netlify alone), and not once ignored", () => {
    const dir = mkdtempSync(join(tmpdir(), "env-ignored-"));
    try {
      writeFileSync(join(dir, ".env"), "SECRET=x\n");
      expect(committableEnvFiles(dir)).toEqual([]);
      expect(spawnSync("git", ["init", "-q"], { cwd: dir }).status).toBe(0);
      writeFileSync(join(dir, ".gitignore"), "# Local Netlify folder\n.netlify\n");
      expect(committableEnvFiles(dir)).toEqual([".env"]);
      expect(envNotIgnored([".env"])).toBe(
        "Warning: .env holds your SECRET and PASSWORD_HASH, and git would commit it. Add `.env` to the blog's .gitignore (with node_modules/ and .netlify/).",
      );
      writeFileSync(join(dir, ".gitignore"), "node_modules/\n.netlify/\n.env\n");
      expect(committableEnvFiles(dir)).toEqual([]);
      // The other files netlify-cli reads are checked too.
      writeFileSync(join(dir, ".env.local"), "SECRET=x\n");
      expect(committableEnvFiles(dir)).toEqual([".env.local"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("npx netlify-indieauth dev: netlify-cli's output", () => {
  const through = (lines: string[]) => {
    const filter = serveOutputFilter();
    return [...lines.flatMap((line) => filter.line(line)), ...filter.end()];
  };

  it("leaves out what is harmless here and rewords what would mislead, passing the rest as it is", () => {
    const rule = "---------------------------";
    expect(
      through([
        "⬥ Ignored general context env var: LANG (defined in process)",
        "⬥ Ignored .env file env var: ME (defined in process)",
        "\x1b[36m⬥\x1b[39m Building project for production",
        "⬥ Changes will not be hot-reloaded, so if you need to rebuild your project you must exit and run 'netlify serve' again",
        "Warning: could not fetch latest plugins list. Plugins versions might not be the latest.",
        "fetch failed",
        "netlify-indieauth: pages in public/indieauth/",
        "⬥ Edge functions are disabled. Run without the --internal-disable-edge-functions flag to enable them.",
        rule,
        "Error: Unable to open browser automatically: Running inside a docker container",
        "Please open your browser and open the URL below:",
        "http://localhost:9000",
        rule,
        "   │   Local dev server ready: http://localhost:9000   │",
      ]),
    ).toEqual([
      "⬥ Ignored .env file env var: ME (defined in process)",
      "⬥ Building the blog and the server (development context)",
      "⬥ Changes are not picked up while it runs: stop it (Ctrl+C) and run npx netlify-indieauth dev again",
      "netlify-indieauth: pages in public/indieauth/",
      "⬥ Edge functions do not run in this local trial (the IndieAuth server needs none)",
      "   │   Local dev server ready: http://localhost:9000   │",
    ]);
  });

  it("keeps a failed fetch that is not the plugin list's, and a rule that frames something else", () => {
    expect(through(["fetch failed", "----------", "a table", "----------"])).toEqual([
      "fetch failed",
      "----------",
      "a table",
      "----------",
    ]);
  });
});

describe("the sign-in by hand a local server prints", () => {
  it("is for its own port, and its verifier matches the challenge in the URL", () => {
    const url = new URL(signInUrl("http://localhost:9000"));
    expect(url.origin).toBe("http://localhost:9000");
    expect(url.pathname).toBe("/auth");
    expect(url.searchParams.get("code_challenge")).toBe(createHash("sha256").update(CODE_VERIFIER).digest("base64url"));
    expect(url.searchParams.get("scope")).toBe("profile create");
    expect(redeemCommand("http://localhost:9000")).toMatch(/^curl -s http:\/\/localhost:9000\/token /);
    const message = readyMessage("http://localhost:9000");
    expect(message).toContain("Ready: http://localhost:9000/");
    expect(message).toContain(signInUrl("http://localhost:9000"));
    expect(message).toContain("http://localhost:9000/indieauth/account/");
    expect(message).not.toContain("8888");
  });
});

describe("how messages name the commands", () => {
  it("names npm scripts in this repository and the package's command in a blog", () => {
    expect(commandFor("hash-password", {})).toBe("npm run hash-password");
    expect(commandFor("check-config", {})).toBe("npm run check-config");
    expect(commandFor("dev", {})).toBe("npm start");
    const blog = { NETLIFY_INDIEAUTH_CLI: "1" };
    expect(commandFor("hash-password", blog)).toBe("npx netlify-indieauth hash-password");
    expect(commandFor("check-config", blog)).toBe("npx netlify-indieauth check-config");
    expect(commandFor("dev", blog)).toBe("npx netlify-indieauth dev");
  });
});

describe("netlify-cli's servers, with the local commands' preload (scripts/listen-host.mjs)", () => {
  /** Where servers made the ways netlify-cli and its parts make them end up listening. */
  function addresses(host: string): string[] {
    const script = `import http from "node:http"; import net from "node:net";
const servers = [];
const listen = (server, ...args) => new Promise((done) => { servers.push(server); server.listen(...args, done); });
await listen(http.createServer(), { port: 0 });          // netlify-cli's proxy
await listen(http.createServer(), 0);                    // its functions server, the local Blobs server
await listen(net.createServer());                        // any free port
await listen(net.createServer(), 0, "0.0.0.0");          // every interface, asked for by name
await listen(net.createServer(), { port: 0, host: "localhost" }); // its static server (Fastify)
process.stdout.write(JSON.stringify(servers.map((s) => s.address().address)));
for (const s of servers) s.close();`;
    const { nodeArgs, env } = listenOn(host);
    const result = spawnSync(process.execPath, [...nodeArgs, "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    expect(result.stderr).toBe("");
    return JSON.parse(result.stdout) as string[];
  }

  it("listen on 127.0.0.1 only, whichever way they ask for a port", () => {
    expect(addresses("127.0.0.1")).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"]);
  });

  it("listen on every interface when told (--host 0.0.0.0), as netlify-cli alone does", () => {
    const all = addresses("0.0.0.0");
    expect(all.slice(0, 3).every((address) => address === "::" || address === "0.0.0.0")).toBe(true);
    expect(all[3]).toBe("0.0.0.0");
  });
});

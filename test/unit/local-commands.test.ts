// The pure parts of the local commands: `npx netlify-indieauth dev`'s arguments, addresses and
// netlify-cli command line; the sign-in by hand printed for a port; and how messages name commands.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { localAddresses, parseDevArguments, serveArguments } from "../../scripts/blog-dev-plan.ts";
import { commandFor } from "../../scripts/commands.ts";
import { CODE_VERIFIER, readyMessage, redeemCommand, signInUrl } from "../../scripts/local-sign-in.ts";
import { parsePort } from "../../scripts/ports.ts";

describe("npx netlify-indieauth dev: arguments", () => {
  it("takes --port N, --port=N and -p N, else PORT, else 8888", () => {
    expect(parseDevArguments(["--port", "9000"])).toEqual({ port: 9000 });
    expect(parseDevArguments(["--port=9001"])).toEqual({ port: 9001 });
    expect(parseDevArguments(["-p", "9002"])).toEqual({ port: 9002 });
    expect(parseDevArguments([], { PORT: "9003" })).toEqual({ port: 9003 });
    expect(parseDevArguments(["--port", "9004"], { PORT: "9003" })).toEqual({ port: 9004 });
    expect(parseDevArguments([])).toEqual({ port: 8888 });
  });

  it("refuses what is not a port, or an argument it does not know, saying how to write it", () => {
    for (const bad of [["--port"], ["--port", "0"], ["--port", "65536"], ["--port", "80a"], ["--port=-1"]]) {
      expect(parseDevArguments(bad)).toEqual({ error: expect.stringContaining("npx netlify-indieauth dev --port 9000") });
    }
    expect(parseDevArguments(["--prot", "9000"])).toEqual({ error: expect.stringContaining("Usage: npx netlify-indieauth dev [--port N]") });
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

describe("npx netlify-indieauth dev: the server's addresses", () => {
  it("tells the server its own origin, unless the shell sets BASE_URL", () => {
    expect(localAddresses(9000, { ME: "http://localhost:9000/" }, {}).env).toEqual({ BASE_URL: "http://localhost:9000" });
    expect(localAddresses(9000, { ME: "http://localhost:9000/" }, { BASE_URL: "http://localhost:7000" }).env).toEqual({});
  });

  it("moves a local ME from .env to this port, and says so; leaves a real site's ME and the shell's alone", () => {
    const moved = localAddresses(9000, { ME: "http://localhost:8888/" }, {});
    expect(moved.env.ME).toBe("http://localhost:9000/");
    expect(moved.notes).toEqual([".env has ME=http://localhost:8888/, for another port; this run uses ME=http://localhost:9000/."]);
    expect(localAddresses(9000, { ME: "https://jane.example/" }, {}).env.ME).toBeUndefined();
    expect(localAddresses(9000, {}, { ME: "http://localhost:8888/" }).env.ME).toBeUndefined();
  });

  it("signs you in as the blog's local home page when ME is not set", () => {
    const { env, notes } = localAddresses(9000, {}, {});
    expect(env.ME).toBe("http://localhost:9000/");
    expect(notes[0]).toContain("ME is not set");
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

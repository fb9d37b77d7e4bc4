// The package entry point netlify-indieauth/resource: what its bundle (built exactly as
// `npm pack` builds it) contains, how package.json declares it, and how the environment picks
// its mode.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { readResourceSettings } from "../../netlify/lib/resource/settings.ts";
import { resourcePathOf } from "../../netlify/lib/resource/metadata.ts";
import { resourceMetadataUrl } from "../../netlify/lib/core/resource-metadata-url.ts";
import { buildResourceEntry, resourceBundle } from "../../scripts/build-resource.ts";

const repo = new URL("../..", import.meta.url).pathname;

async function metafile(): Promise<Metafile> {
  const result = await build({
    ...resourceBundle(true),
    absWorkingDir: repo,
    write: false,
    metafile: true,
    outdir: "out",
  });
  return result.metafile;
}

describe("the resource entry's bundle", () => {
  it("holds the token check and nothing of sign-in, client discovery, WebAuthn, sessions or pages", async () => {
    const inputs = Object.keys((await metafile()).inputs);
    expect(inputs).toContain("netlify/lib/protocol/verification.ts");
    expect(inputs).toContain("netlify/lib/protocol/grants.ts");
    // The connection log (storage, and how a step joins its attempt) is the one owner module it
    // holds: a refused token is told to the owner's connection doctor (a resource-refused event, resource/server.ts).
    const connectionLog = ["netlify/lib/owner/connection-log.ts", "netlify/lib/owner/connection-attempts.ts"];
    for (const path of connectionLog) expect(inputs).toContain(path);
    const foreign = inputs
      .filter((path) => !connectionLog.includes(path))
      .filter((path) =>
        /^netlify\/lib\/(owner|clients|endpoints)\/|^netlify\/lib\/crypto\/typed-jwt\.ts$|^netlify\/lib\/platform\/(config|runtime|housekeeping)\.ts$|^netlify\/lib\/protocol\/(authorization-request|request-object|codes|pkce|profile)\.ts$|^site\/|^node_modules\//.test(
          path,
        ),
      );
    expect(foreign).toEqual([]);
  });

  it("imports @netlify/blobs and node:crypto, and no other package", async () => {
    const [output] = Object.values((await metafile()).outputs);
    const imports = (kind: string) =>
      [...new Set(output!.imports.filter((i) => i.external && i.kind === kind).map((i) => i.path))].sort();
    // And two of Node's own, for the storage deadline to follow each operation's requests
    // (platform/storage-deadline.ts): async_hooks, loaded at Node's start, and
    // diagnostics_channel, which fetch loads with its first request anyway.
    expect(imports("import-statement")).toEqual([
      "@netlify/blobs",
      "node:async_hooks",
      "node:crypto",
      "node:diagnostics_channel",
    ]);
    // Node's own fs, os and path, on use: the store's lock for the local Blobs server only
    // (platform/local-write-lock.ts), never loaded against production Blobs.
    expect(imports("dynamic-import")).toEqual(["node:fs/promises", "node:os", "node:path"]);
    expect(output!.imports.filter((i) => !i.external)).toEqual([]);
  });

  it("is declared in package.json as netlify-indieauth/resource, with types, in the files npm packs; the plugin stays the main entry", () => {
    const pkg = JSON.parse(readFileSync(`${repo}package.json`, "utf8")) as {
      main: string;
      exports: Record<string, unknown>;
      files: string[];
      scripts: Record<string, string>;
    };
    expect(pkg.exports["."]).toBe(`./${pkg.main}`);
    expect(pkg.exports["./resource"]).toEqual({
      types: "./netlify/resource/types/resource/index.d.ts",
      default: "./netlify/resource/index.mjs",
    });
    expect(pkg.files).toContain("netlify/resource/");
    expect(pkg.scripts.prepack).toContain("scripts/build-resource.ts");
  });

  // What `npm pack` runs: a declaration the compiler cannot emit (an exported anonymous class with a
  // protected member, say) fails the pack, and a blog author would get no types.
  it("builds with its type declarations, the error classes a blog's function switches on among them", async () => {
    const out = mkdtempSync(join(tmpdir(), "resource-entry-"));
    try {
      await buildResourceEntry(out);
      const errors = readFileSync(join(out, "types/errors.d.ts"), "utf8");
      expect(errors).toMatch(/class InsufficientScope extends BearerRefusal/);
      expect(readFileSync(join(out, "types/resource/index.d.ts"), "utf8")).toContain("requireToken");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});

describe("the resource API's settings", () => {
  it("reads the store directly on the server's own site, by default", () => {
    expect(readResourceSettings({})).toEqual({ ok: true, settings: { mode: "same-site" } });
    expect(readResourceSettings({ URL: "https://jane.example", INDIEAUTH_STORE: "other" })).toEqual({
      ok: true,
      settings: { mode: "same-site", storeName: "other", issuer: "https://jane.example/" },
    });
    expect(readResourceSettings({ URL: "https://jane.example", BASE_URL: "https://auth.jane.example" })).toMatchObject({
      settings: { issuer: "https://auth.jane.example/" },
    });
  });

  it("asks INDIEAUTH_SERVER's /introspect with INTROSPECTION_TOKEN when INDIEAUTH_SERVER is set", () => {
    const credential = "k".repeat(32);
    expect(
      readResourceSettings({ INDIEAUTH_SERVER: "https://auth.jane.example/", INTROSPECTION_TOKEN: credential }),
    ).toEqual({
      ok: true,
      settings: {
        mode: "introspection",
        issuer: "https://auth.jane.example/",
        introspectionEndpoint: "https://auth.jane.example/introspect",
        credential,
      },
    });
    expect(
      readResourceSettings({ INDIEAUTH_SERVER: "http://localhost:8888", INTROSPECTION_TOKEN: credential }),
    ).toMatchObject({ ok: true });
  });

  it("names the variable to fix", () => {
    const problem = (env: Record<string, string>) => {
      const result = readResourceSettings(env);
      return result.ok ? null : result.problem.variable;
    };
    expect(problem({ INDIEAUTH_SERVER: "https://auth.jane.example" })).toBe("INTROSPECTION_TOKEN");
    expect(problem({ INDIEAUTH_SERVER: "https://auth.jane.example", INTROSPECTION_TOKEN: "short" })).toBe(
      "INTROSPECTION_TOKEN",
    );
    for (const server of [
      "http://auth.jane.example",
      "https://auth.jane.example/path",
      "auth.jane.example",
      "https://auth.jane.example/?q",
    ]) {
      expect({ server, variable: problem({ INDIEAUTH_SERVER: server, INTROSPECTION_TOKEN: "k".repeat(32) }) }).toEqual({
        server,
        variable: "INDIEAUTH_SERVER",
      });
    }
  });
});

describe("where a resource's metadata lives (RFC 9728 3.1)", () => {
  it("puts the well-known path between the host and the resource's path", () => {
    const metadataUrlOf = (resource: string) => resourceMetadataUrl(new URL(resource));
    expect(metadataUrlOf("https://jane.example/micropub")).toBe(
      "https://jane.example/.well-known/oauth-protected-resource/micropub",
    );
    expect(metadataUrlOf("https://jane.example/")).toBe("https://jane.example/.well-known/oauth-protected-resource");
    expect(metadataUrlOf("https://jane.example/api/mcp?v=1")).toBe(
      "https://jane.example/.well-known/oauth-protected-resource/api/mcp?v=1",
    );
  });

  it("reads the resource's path back from a metadata request", () => {
    const path = (url: string) => resourcePathOf(new URL(url));
    expect(path("https://jane.example/.well-known/oauth-protected-resource/micropub")).toBe("/micropub");
    expect(path("https://jane.example/.well-known/oauth-protected-resource")).toBe("/");
    expect(path("https://jane.example/.well-known/oauth-protected-resourcex")).toBeNull();
    expect(path("https://jane.example/micropub")).toBeNull();
  });
});

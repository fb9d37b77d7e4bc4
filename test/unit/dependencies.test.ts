// A blog that installs this package gets its `dependencies` and nothing else: they must be exactly
// the packages that what runs there imports. That is the build plugin, the packaged command and the
// scripts both load (by computed path, so named here), the functions, the pages' browser scripts
// (bundled in the blog's build) and the resource entry. Type-only imports do not count: esbuild
// drops them, as it does when it builds the functions. Everything else is a devDependency.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const root = new URL("../..", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const inFolder = (folder: string) =>
  readdirSync(join(root, folder))
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(folder, file));
const ENTRIES = [
  "netlify/plugin/index.mjs",
  "scripts/cli.mjs",
  // What the plugin and the packaged command load by path.
  "scripts/build.ts",
  "scripts/build-functions.ts",
  "scripts/hash-password.ts",
  "scripts/check-config.ts",
  "scripts/blog-dev.ts",
  "scripts/own-files.ts",
  "scripts/publish-check.ts",
  "scripts/listen-host.mjs",
  "netlify/lib/resource/index.ts",
  ...inFolder("netlify/functions"),
  ...inFolder("site/scripts"),
];

/** The packages the entries import at run time (node: modules aside). */
async function importedPackages(): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: ENTRIES.map((entry) => join(root, entry)),
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    outdir: "/nowhere",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const names = new Set<string>();
  for (const input of Object.values(metafile.inputs)) {
    for (const imported of input.imports) {
      if (!imported.external || imported.path.startsWith("node:")) continue;
      const [first, second] = imported.path.split("/");
      names.add(first!.startsWith("@") ? `${first}/${second}` : first!);
    }
  }
  return [...names].sort();
}

describe("the package's dependencies", () => {
  it("are exactly what the plugin, the packaged command, the functions, the pages and the resource entry import", async () => {
    expect(Object.keys(pkg.dependencies).sort()).toEqual(await importedPackages());
  });

  it("leave the tools of this repository (tests, types, netlify-cli, generators) to devDependencies", () => {
    for (const tool of [
      "netlify-cli",
      "vitest",
      "typescript",
      "@11ty/eleventy",
      "@modelcontextprotocol/sdk",
      "openid-client",
      "playwright-core",
      "@netlify/functions",
    ]) {
      expect(Object.keys(pkg.devDependencies)).toContain(tool);
      expect(Object.keys(pkg.dependencies)).not.toContain(tool);
    }
  });
});

// Prebuilds the Netlify Functions with esbuild: one folder per function, holding a two-line
// entry module, the function's bundle (handler.mjs: our code and the packages every request may
// need, minified) and chunks/, the packages that only some requests load. Netlify then deploys
// these files as they are.
//
// Why: left to itself, `netlify build` bundles our modules into one file per function but ships
// packages whole from node_modules, and inlines a dynamic import of one of our modules, so the
// packages that module imports load at every cold start. Here a package imported on use (a
// dynamic `import("pkg")`) is built apart, as its own module in chunks/, which the handler imports
// when a request first needs it: the WebAuthn library in a passkey ceremony, the HTML parser when
// a client's page is fetched, bcrypt for a bcrypt hash. `npm run bench` measures it. Import
// packages on use, never our own modules: a dynamic import of one of ours is inlined into the
// handler, with the packages it imports; the function-build test holds each cold start to handler.mjs.
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Metafile, type Plugin } from "esbuild";
import type { Build } from "../netlify/lib/platform/setup.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Where the functions' sources are: one module per function, `export default asFunction(...)`. */
export const FUNCTION_SOURCES = join(root, "netlify", "functions");
/** Where `npm run build` writes them for a standalone deployment (netlify.toml [functions]). */
export const BUILT_FUNCTIONS = join(root, ".netlify", "indieauth", "functions");

/** A function's Netlify config (https://docs.netlify.com/functions/get-started/): routes, schedule. */
export type FunctionConfig = Record<string, unknown>;

export interface FunctionBuildOptions {
  /** Put before each function's name (the build plugin's "indieauth-"), so the names cannot clash
   * with the site's own functions. */
  prefix?: string;
  /** Config added to what the function's module exports (the build plugin's routes). */
  config?: (name: string) => FunctionConfig | undefined;
  /** Function sources; `netlify/functions` unless told (the bench adds a floor function). */
  sources?: string;
  /** Which build this is, baked into the code (netlify/lib/platform/setup.ts): the build plugin
   * says "plugin", so the functions know they share a site with the owner's blog. */
  built?: Build;
}

export interface BuiltFunction {
  /** The deployed name (with the prefix). */
  name: string;
  /** Its folder: <name>.mjs, handler.mjs, chunks/. */
  dir: string;
  /** Every file of the folder, in bytes: what the function ships besides Netlify's bootstrap. */
  bytes: number;
  /** The packages in the code a cold start loads (the handler and its static imports). */
  coldStartPackages: string[];
  /** The packages only in chunks that load when a request first needs them. */
  onDemandPackages: string[];
  /** The files of the folder that a cold start loads besides the entry (handler.mjs first). */
  coldStartFiles: string[];
}

/** The package a bundled input belongs to, or null for our own code. */
function packageOf(input: string): string | null {
  return /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1] ?? null;
}

const packagesIn = (metafile: Metafile | undefined) =>
  new Set(Object.keys(metafile?.inputs ?? {}).flatMap((input) => packageOf(input) ?? []));

// esbuild's ESM output keeps a CommonJS package's require() of Node's own modules: give it one.
const REQUIRE_SHIM =
  'import{createRequire as __indieauthRequire}from"node:module";const require=__indieauthRequire(import.meta.url);';

/** What both passes share: one minified ESM file per entry, for Node. */
const COMMON = {
  metafile: true,
  bundle: true,
  outExtension: { ".js": ".mjs" },
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  banner: { js: REQUIRE_SHIM },
  logLevel: "warning",
} as const;

/** Marks the import being resolved by the plugin itself, so that it does not take it again. */
const RESOLVING = Symbol("lazy package");

/** A package imported on use (`import("pkg")`) is left out of the handler, which imports it from
 * chunks/<pkg>.mjs instead; `lazy` collects each such file's name and the package's entry (as
 * esbuild resolves it here), which the second pass builds. */
function lazyPackages(lazy: Map<string, string>): Plugin {
  return {
    name: "lazy-packages",
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.kind !== "dynamic-import" || args.pluginData === RESOLVING) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: RESOLVING,
        });
        if (resolved.errors.length > 0 || resolved.external)
          return resolved.errors.length > 0 ? { errors: resolved.errors } : undefined;
        const name = args.path.replace(/^@/, "").replaceAll("/", "-");
        if (lazy.has(name) && lazy.get(name) !== resolved.path)
          return { errors: [{ text: `two packages imported on use would both be chunks/${name}.mjs` }] };
        lazy.set(name, resolved.path);
        return { path: `./chunks/${name}.mjs`, external: true };
      });
    },
  };
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** The function sources' names: every .ts module in `sources`. */
export async function functionNames(sources = FUNCTION_SOURCES): Promise<string[]> {
  return (await readdir(sources))
    .filter((file) => file.endsWith(".ts"))
    .map((file) => file.slice(0, -3))
    .sort();
}

/** Builds every function into its own folder of `outDir` and returns what was written. Nothing
 * else in `outDir` is touched (in a blog, other tools write their functions there too). */
export async function buildFunctions(outDir: string, options: FunctionBuildOptions = {}): Promise<BuiltFunction[]> {
  const sources = options.sources ?? FUNCTION_SOURCES;
  const built: BuiltFunction[] = [];
  for (const source of await functionNames(sources)) {
    const name = `${options.prefix ?? ""}${source}`;
    const dir = join(outDir, name);
    await rm(dir, { recursive: true, force: true });
    // The handler: our code and the packages every request may need, in one file (each module
    // file costs a cold start about a millisecond, as much as 20 KB more code in one file).
    const lazy = new Map<string, string>();
    const { metafile } = await build({
      ...COMMON,
      entryPoints: { handler: join(sources, `${source}.ts`) },
      outdir: dir,
      plugins: [lazyPackages(lazy)],
      define: { INDIEAUTH_BUILT_FOR: JSON.stringify(options.built ?? "standalone") },
    });
    // The packages it imports on use, each a module of chunks/ (the code they share, and
    // esbuild's helpers for CommonJS, in chunks of their own), loaded when a request first needs it.
    const onDemand =
      lazy.size === 0
        ? undefined
        : (
            await build({
              ...COMMON,
              entryPoints: Object.fromEntries(lazy),
              outdir: join(dir, "chunks"),
              splitting: true,
              chunkNames: "[name]-[hash]",
            })
          ).metafile;
    // The config a module exports (cleanup's schedule) is read from the built handler, and
    // written out as a literal in the entry module, where Netlify reads it without running code.
    const handler = pathToFileURL(join(dir, "handler.mjs")).href;
    const exported = ((await import(handler)) as { config?: FunctionConfig }).config;
    // Netlify ships these files as they are: its own bundler would inline the chunks again.
    const config = {
      ...exported,
      ...options.config?.(source),
      nodeBundler: "none",
      includedFiles: ["handler.mjs", "chunks/**"],
    };
    const entry = [
      `// ${source}: built from netlify/functions/${source}.ts by netlify-indieauth (scripts/build-functions.ts).`,
      `export { default } from "./handler.mjs";`,
      `export const config = ${JSON.stringify(config)};`,
      "",
    ].join("\n");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.mjs`), entry);
    const handlerOutput = Object.entries(metafile.outputs).find(([path]) => path.endsWith("/handler.mjs"))![1];
    const coldStartPackages = packagesIn(metafile);
    const coldStartFiles = [
      "handler.mjs",
      ...handlerOutput.imports
        .filter((i) => i.kind === "import-statement" && i.path.startsWith("./"))
        .map((i) => i.path.slice(2)),
    ];
    const onDemandPackages = [...packagesIn(onDemand)].filter((p) => !coldStartPackages.has(p)).sort();
    built.push({
      name,
      dir,
      bytes: await folderBytes(dir),
      coldStartPackages: [...coldStartPackages].sort(),
      onDemandPackages,
      coldStartFiles,
    });
  }
  return built;
}

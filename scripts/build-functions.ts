// Prebuilds the Netlify Functions with esbuild: one folder per function, holding a two-line
// entry module, the function's bundle (our code and every package it uses, minified) and the
// chunks that only some requests load. Netlify then deploys these files as they are.
//
// Why: left to itself, `netlify build` bundles our modules into one file per function but ships
// packages whole from node_modules, and inlines a dynamic import of one of our modules, so the
// packages that module imports load at every cold start. Here each function's code splits at its
// dynamic imports: the WebAuthn library loads only in a passkey ceremony, the HTML parser only
// when a client's page is fetched, bcrypt only for a bcrypt hash. `npm run bench` measures it.
// Import packages on use, never our own modules: a dynamic import of one of ours makes esbuild
// move the code it shares with the handler into chunks that every cold start loads (each module
// file costs about a millisecond); the function-build test holds each cold start to handler.mjs.
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
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

/** The outputs a cold start loads: the handler and what it imports statically (but `dropped`). */
function coldStartOutputs(metafile: Metafile, handler: string, dropped: ReadonlySet<string> = new Set()): Set<string> {
  const outputs = metafile.outputs;
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path) || !outputs[path]) return;
    loaded.add(path);
    for (const imported of outputs[path].imports) if (imported.kind === "import-statement" && !(path === handler && dropped.has(imported.path))) visit(imported.path);
  };
  visit(handler);
  return loaded;
}

/** Which packages load at cold start and which on demand, from esbuild's metafile: the
 * outputs reachable from the handler by static imports load with it. */
function packagesByLoad(metafile: Metafile, handler: string, dropped: ReadonlySet<string>): Pick<BuiltFunction, "coldStartPackages" | "onDemandPackages" | "coldStartFiles"> {
  const outputs = metafile.outputs;
  const loaded = coldStartOutputs(metafile, handler, dropped);
  const packagesIn = (paths: string[]) => new Set(paths.flatMap((path) => Object.keys(outputs[path]!.inputs).map(packageOf).filter((p): p is string => p !== null)));
  const cold = packagesIn([...loaded]);
  const all = packagesIn(Object.keys(outputs));
  const coldStartFiles = [...loaded].map((path) => relative(dirname(handler), path));
  return { coldStartPackages: [...cold].sort(), onDemandPackages: [...all].filter((p) => !cold.has(p)).sort(), coldStartFiles };
}

// esbuild's ESM output keeps a CommonJS package's require() of Node's own modules: give it one.
const REQUIRE_SHIM = 'import{createRequire as __indieauthRequire}from"node:module";const require=__indieauthRequire(import.meta.url);';

/** Every module file costs a cold start about a millisecond (resolve, read, compile, link),
 * as much as 20 KB more code in one file. esbuild puts its helpers for CommonJS packages (which
 * only on-demand chunks use) in a chunk of their own, and the handler imports it for side
 * effects it does not have: that import is dropped. A chunk with no input is such a chunk (the
 * helpers are no module of ours or of a package); the chunks that use a helper import it by name. */
async function dropHelperImports(metafile: Metafile, handler: string): Promise<Set<string>> {
  const isHelpers = (path: string) => {
    const inputs = metafile.outputs[path]?.inputs;
    return inputs !== undefined && Object.keys(inputs).length === 0;
  };
  const dropped = new Set<string>();
  let code = await readFile(handler, "utf8");
  for (const { path, kind } of metafile.outputs[handler]!.imports) {
    const statement = `import"./${relative(dirname(handler), path)}";`;
    if (kind !== "import-statement" || !isHelpers(path) || !code.includes(statement)) continue;
    code = code.replace(statement, "");
    dropped.add(path);
  }
  if (dropped.size > 0) await writeFile(handler, code);
  return dropped;
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
  return (await readdir(sources)).filter((file) => file.endsWith(".ts")).map((file) => file.slice(0, -3)).sort();
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
    const { metafile } = await build({
      metafile: true,
      entryPoints: { handler: join(sources, `${source}.ts`) },
      outdir: dir,
      bundle: true,
      // Each dynamic import becomes a chunk that loads when a request first needs it.
      splitting: true,
      chunkNames: "chunks/[name]-[hash]",
      outExtension: { ".js": ".mjs" },
      format: "esm",
      platform: "node",
      target: "node20",
      minify: true,
      banner: { js: REQUIRE_SHIM },
      define: { INDIEAUTH_BUILT_FOR: JSON.stringify(options.built ?? "standalone") },
      logLevel: "warning",
    });
    const handlerOutput = Object.keys(metafile.outputs).find((path) => path.endsWith(`${name}/handler.mjs`))!;
    const dropped = await dropHelperImports(metafile, handlerOutput);
    // The config a module exports (cleanup's schedule) is read from the built handler, and
    // written out as a literal in the entry module, where Netlify reads it without running code.
    const handler = pathToFileURL(join(dir, "handler.mjs")).href;
    const exported = ((await import(handler)) as { config?: FunctionConfig }).config;
    // Netlify ships these files as they are: its own bundler would inline the chunks again.
    const config = { ...exported, ...options.config?.(source), nodeBundler: "none", includedFiles: ["handler.mjs", "chunks/**"] };
    const entry = [
      `// ${source}: built from netlify/functions/${source}.ts by netlify-indieauth (scripts/build-functions.ts).`,
      `export { default } from "./handler.mjs";`,
      `export const config = ${JSON.stringify(config)};`,
      "",
    ].join("\n");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${name}.mjs`), entry);
    built.push({ name, dir, bytes: await folderBytes(dir), ...packagesByLoad(metafile, handlerOutput, dropped) });
  }
  return built;
}

// Builds the package's resource-server entry point, `netlify-indieauth/resource`, before
// `npm pack` (the `prepack` script; npm runs it for a tarball and for an install from git).
// A blog's function imports it by package name, and Netlify's bundler leaves packages as they
// are in node_modules: a package's TypeScript is neither bundled nor loadable by Node 20 there.
// So the entry ships as one ES module (our modules inlined, @netlify/blobs imported by name)
// with type declarations beside it, in netlify/resource/ (not in git).
//   npx tsx scripts/build-resource.ts        writes netlify/resource/index.mjs and types/
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { build, type BuildOptions } from "esbuild";
import ts from "typescript";

const ROOT = new URL("..", import.meta.url).pathname;
export const RESOURCE_SOURCE = join(ROOT, "netlify", "lib", "resource", "index.ts");
export const RESOURCE_OUT = join(ROOT, "netlify", "resource");

/** How the entry is bundled: our modules inlined, packages left as imports by name. */
export function resourceBundle(minify: boolean): BuildOptions {
  return {
    entryPoints: [RESOURCE_SOURCE],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    minify,
    legalComments: "none",
    logLevel: "silent",
  };
}

/** The declarations of the entry and of the modules its types name, by path under `outDir`. */
function declarations(outDir: string): Map<string, string> {
  const configPath = join(ROOT, "tsconfig.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!parsed) throw new Error("tsconfig.json could not be read");
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: join(ROOT, "netlify", "lib"),
    outDir,
  };
  const files = new Map<string, string>();
  const result = ts.createProgram([RESOURCE_SOURCE], options).emit(undefined, (path, text) => files.set(path, text));
  const errors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (result.emitSkipped || errors.length > 0) {
    throw new Error(
      ts.formatDiagnostics(errors, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => "\n",
      }),
    );
  }
  return files;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Writes the entry and its declarations. Test files pack the package at the same moment
 * (each `npm pack` runs this): so every file is replaced whole (written beside, then renamed
 * over), never deleted first, and only files no build makes any more are removed. */
export async function buildResourceEntry(outDir = RESOURCE_OUT): Promise<void> {
  // Not minified: a stack trace from a blog's function should be readable.
  const bundle = await build({ ...resourceBundle(false), outfile: join(outDir, "index.mjs"), write: false });
  const files = new Map<string, string | Uint8Array>(bundle.outputFiles.map((f) => [f.path, f.contents]));
  for (const [path, text] of declarations(join(outDir, "types"))) files.set(path, text);
  for (const [path, contents] of files) {
    await mkdir(dirname(path), { recursive: true });
    const beside = `${path}.${process.pid}.tmp`;
    await writeFile(beside, contents);
    await rename(beside, path);
  }
  for (const stale of await filesUnder(outDir))
    if (!files.has(stale) && !stale.endsWith(".tmp")) await rm(stale, { force: true });
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  buildResourceEntry().catch((error: unknown) => {
    // stderr only: `npm pack --json` prints its answer on stdout.
    console.error("build-resource failed:", error);
    process.exit(1);
  });
}

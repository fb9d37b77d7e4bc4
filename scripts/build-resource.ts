// Builds the package's resource-server entry point, `netlify-indieauth/resource`, before
// `npm pack` (the `prepack` script; npm runs it for a tarball and for an install from git).
// A blog's function imports it by package name, and Netlify's bundler leaves packages as they
// are in node_modules: a package's TypeScript is neither bundled nor loadable by Node 20 there.
// So the entry ships as one ES module (our modules inlined, @netlify/blobs imported by name)
// with type declarations beside it, in netlify/resource/ (not in git).
//   npx tsx scripts/build-resource.ts        writes netlify/resource/index.mjs and types/
import { rm } from "node:fs/promises";
import { join } from "node:path";
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

/** The declarations of the entry and the modules its types name, under types/. */
function writeDeclarations(outDir: string): void {
  const configPath = join(ROOT, "tsconfig.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!parsed) throw new Error("tsconfig.json could not be read");
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: join(ROOT, "netlify", "lib"),
    outDir,
  };
  const result = ts.createProgram([RESOURCE_SOURCE], options).emit();
  const errors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (result.emitSkipped || errors.length > 0) {
    throw new Error(ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => "\n" }));
  }
}

export async function buildResourceEntry(outDir = RESOURCE_OUT): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  // Not minified: a stack trace from a blog's function should be readable.
  await build({ ...resourceBundle(false), outfile: join(outDir, "index.mjs") });
  writeDeclarations(join(outDir, "types"));
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  buildResourceEntry().catch((error: unknown) => {
    // stderr only: `npm pack --json` prints its answer on stdout.
    console.error("build-resource failed:", error);
    process.exit(1);
  });
}

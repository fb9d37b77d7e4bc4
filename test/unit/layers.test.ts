// The code under netlify/lib reads top to bottom: each folder is a layer (docs/architecture.md,
// "Layers"), and a file imports only from its own layer or a lower one. Type-only and dynamic
// imports count too: a type pulled from above ties the lower layer to the higher one just the same.
// Also: no source file under netlify/ or scripts/ grows past 300 lines (as Prettier prints them at 120
// columns: the 250 lines of the denser style before the formatter, which adds about a fifth).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const lib = join(repo, "netlify/lib");

/** Bottom to top. A key is a folder under netlify/lib; "." is the files at its root (the errors). */
const LAYERS: readonly (readonly string[])[] = [
  ["core", "crypto"],
  ["pages"],
  ["."],
  ["platform"],
  ["clients"],
  ["protocol"],
  ["owner"],
  ["http"],
  ["resource"],
  ["endpoints"],
];
const MAX_LINES = 300;

function layerOf(folder: string): number {
  return LAYERS.findIndex((layer) => layer.includes(folder));
}

/** Every file below `dir` whose name ends in one of `endings`, skipping build output and packages. */
function filesUnder(dir: string, endings: readonly string[]): string[] {
  const skipped = new Set(["node_modules", join(repo, "netlify/resource")]);
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (skipped.has(entry.name) || skipped.has(path)) return [];
    if (entry.isDirectory()) return filesUnder(path, endings);
    return endings.some((ending) => entry.name.endsWith(ending)) ? [path] : [];
  });
}

/** The folder of a file under netlify/lib ("." for its root). */
function folderOf(file: string): string {
  const dir = relative(lib, dirname(file));
  return dir === "" ? "." : dir.split("/")[0]!;
}

interface Edge {
  from: string;
  to: string;
}

/** Every import between files under netlify/lib: static, `import type`, re-exports and `import()`. */
function libImports(): Edge[] {
  return filesUnder(lib, [".ts"]).flatMap((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    return importedFiles
      .filter(({ fileName }) => fileName.startsWith("."))
      .map(({ fileName }) => ({ from: relative(lib, file), to: relative(lib, resolve(dirname(file), fileName)) }))
      .filter(({ to }) => !to.startsWith(".."));
  });
}

/** The folders that import each other, directly or round a longer circle (Tarjan's components). */
function folderCycles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const [a, b] = [folderOf(join(lib, from)), folderOf(join(lib, to))];
    if (a === b) continue;
    next.set(a, (next.get(a) ?? new Set()).add(b));
    if (!next.has(b)) next.set(b, new Set());
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next.get(node)!) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = stack.splice(stack.indexOf(node));
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe("the layers under netlify/lib", () => {
  const edges = libImports();

  it("finds the imports it checks", () => {
    // A parser that saw nothing would pass everything: these three are known to exist.
    expect(edges).toContainEqual({ from: "endpoints/token.ts", to: "http/endpoint.ts" });
    expect(edges.some(({ to }) => to.startsWith("core/"))).toBe(true);
    expect(edges.some(({ from, to }) => from === "endpoints/passkey-api.ts" && to === "owner/webauthn.ts")).toBe(true);
  });

  it("puts every folder in a layer", () => {
    const folders = new Set(filesUnder(lib, [".ts"]).map(folderOf));
    expect([...folders].filter((folder) => layerOf(folder) < 0)).toEqual([]);
  });

  it("imports only from the same layer or a lower one", () => {
    const upward = edges
      .filter(({ from, to }) => layerOf(folderOf(join(lib, to))) > layerOf(folderOf(join(lib, from))))
      .map(({ from, to }) => `netlify/lib/${from} imports netlify/lib/${to}`);
    expect(upward).toEqual([]);
  });

  it("keeps core/ free of the rest: pure values, importing nothing else under netlify/lib", () => {
    const outward = edges
      .filter(({ from, to }) => from.startsWith("core/") && !to.startsWith("core/"))
      .map(({ from, to }) => `netlify/lib/${from} imports netlify/lib/${to}`);
    expect(outward).toEqual([]);
  });

  it("has no circle of imports between folders", () => {
    expect(folderCycles(edges).map((cycle) => cycle.join(" <-> "))).toEqual([]);
  });
});

describe("source files", () => {
  it(`stay within ${MAX_LINES} lines under netlify/ and scripts/`, () => {
    const files = [
      ...filesUnder(join(repo, "netlify"), [".ts", ".mjs", ".js", ".cjs"]),
      ...filesUnder(join(repo, "scripts"), [".ts", ".mjs", ".js", ".cjs"]),
    ];
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({ file: relative(repo, file), lines: readFileSync(file, "utf8").split("\n").length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});

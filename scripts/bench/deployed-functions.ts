// What Netlify deploys: `netlify build --offline` in a temporary copy of the checkout, with a
// floor function added (a one-line handler that imports only @netlify/blobs, among the sources
// so that the build command prebuilds it like every other function), then every
// function's zip unzipped and measured. The copy's node_modules are hard links, not a symlink:
// with a symlinked node_modules nft writes a symlink into the zip instead of the packages.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import type { Env } from "../../netlify/lib/platform/config.ts";
import { ROOT } from "./settings.ts";
import { unzip, type ZipEntry } from "./zip.ts";

const exec = promisify(execFile);

export const FLOOR = "bench-floor";
const FLOOR_SOURCE = `import { getStore } from "@netlify/blobs";\nexport default async () => new Response(typeof getStore);\n`;
/** The floor with node:crypto, which every function needs for its first request (the floor
 * does not load it): shows how much of a function's cold import is Node's own, not ours. */
export const FLOOR_CRYPTO = "bench-floor-crypto";
const FLOOR_CRYPTO_SOURCE = `import { getStore } from "@netlify/blobs";\nimport { createHash } from "node:crypto";\nexport default async () => new Response(typeof getStore + typeof createHash);\n`;

/** Not part of the site: left out of the copy (.env too, so the build sees only our variables). */
const NOT_COPIED = new Set(["node_modules", ".netlify", "dist", ".git", ".env", join("test", "output")]);

export interface DeployedFunction {
  fn: string;
  zipBytes: number;
  /** Uncompressed: our files (the prebuilt function: entry, handler, chunks), everything but the two below. */
  codeBytes: number;
  /** Uncompressed: node_modules/ in the zip, as nft traced it. */
  packagesBytes: number;
  /** Uncompressed: Netlify's bootstrap (___netlify-*), the same in every zip. */
  bootstrapBytes: number;
  /** Every package in the zip with its bytes, largest first. */
  packages: { name: string; bytes: number }[];
  /** The unzipped function module: <dir>/<fn>.mjs. */
  entry: string;
}

interface DeployedBuild {
  /** The temporary folder holding the copy and the unzipped functions. */
  dir: string;
  buildSeconds: number;
  functions: DeployedFunction[];
  floor: DeployedFunction;
  floorCrypto: DeployedFunction;
  cleanup(): Promise<void>;
}

async function copyCheckout(copy: string): Promise<void> {
  await cp(ROOT, copy, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(ROOT, source)) });
  const modules = await realpath(join(ROOT, "node_modules"));
  // Hard links cost nothing; another file system (or no hard links) gets a real copy.
  await exec("cp", ["-al", modules, join(copy, "node_modules")]).catch(() =>
    exec("cp", ["-a", modules, join(copy, "node_modules")]),
  );
}

async function netlifyBuild(copy: string, env: Env): Promise<number> {
  const variables = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const { NETLIFY_BLOBS_CONTEXT: _blobs, ...inherited } = process.env;
  const start = performance.now();
  try {
    await exec(join(copy, "node_modules", ".bin", "netlify"), ["build", "--offline"], {
      cwd: copy,
      env: { ...inherited, ...variables },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 10 * 60_000,
    });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `netlify build --offline failed:\n${`${stdout}\n${stderr}`.trim().split("\n").slice(-30).join("\n")}`,
      { cause: error },
    );
  }
  return (performance.now() - start) / 1000;
}

/** The package a node_modules path belongs to (the innermost one, for nested node_modules). */
function packageOf(path: string): string | null {
  return /^(?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? null;
}

function measure(fn: string, zipBytes: number, entries: readonly ZipEntry[], dir: string): DeployedFunction {
  const byPackage = new Map<string, number>();
  let codeBytes = 0;
  let bootstrapBytes = 0;
  for (const entry of entries) {
    const pkg = packageOf(entry.name);
    if (pkg) byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + entry.size);
    else if (entry.name.startsWith("___netlify")) bootstrapBytes += entry.size;
    else codeBytes += entry.size;
  }
  const packages = [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes);
  // Netlify's entry point imports ./<fn>.mjs: our two-line entry module, which loads handler.mjs.
  const module = entries.find((e) => e.name === `${fn}.mjs`);
  if (!module)
    throw new Error(
      `${fn}.zip holds no ${fn}.mjs (found ${entries
        .map((e) => e.name)
        .filter((n) => !packageOf(n))
        .join(", ")})`,
    );
  const packagesBytes = packages.reduce((sum, p) => sum + p.bytes, 0);
  return {
    fn,
    zipBytes,
    codeBytes,
    packagesBytes,
    bootstrapBytes,
    packages,
    entry: join(dir, ...module.name.split("/")),
  };
}

/** Builds the site as Netlify would, with the floor function added; unzips every function. */
export async function buildDeployed(env: Env): Promise<DeployedBuild> {
  const dir = await mkdtemp(join(tmpdir(), "indieauth-bench-deploy-"));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  try {
    const copy = join(dir, "site");
    await copyCheckout(copy);
    const sources = (await readdir(join(copy, "netlify", "functions"))).filter((f) => /\.(ts|mjs|js)$/.test(f));
    await writeFile(join(copy, "netlify", "functions", `${FLOOR}.ts`), FLOOR_SOURCE);
    await writeFile(join(copy, "netlify", "functions", `${FLOOR_CRYPTO}.ts`), FLOOR_CRYPTO_SOURCE);
    const buildSeconds = await netlifyBuild(copy, env);

    const zips = join(copy, ".netlify", "functions");
    const names = sources.map((f) => f.replace(/\.[^.]+$/, "")).sort();
    const deployed: DeployedFunction[] = [];
    for (const fn of [...names, FLOOR, FLOOR_CRYPTO]) {
      const zip = join(zips, `${fn}.zip`);
      const zipBytes = (await stat(zip).catch(() => null))?.size;
      if (zipBytes === undefined) throw new Error(`netlify build wrote no ${relative(dir, zip)}`);
      const into = join(dir, "unzipped", fn);
      await mkdir(into, { recursive: true });
      deployed.push(measure(fn, zipBytes, await unzip(zip, into), into));
    }
    const floorCrypto = deployed.pop()!;
    const floor = deployed.pop()!;
    return { dir, buildSeconds, functions: deployed, floor, floorCrypto, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

// (3) Cold start of what Netlify deploys: each function's zip from `netlify build --offline`,
// unzipped, and `await import()` of its module timed (CPU and wall) in fresh Node processes,
// round-robin with a floor function built the same way that imports only @netlify/blobs and the
// reference that adds node:crypto to it. Judged: each function's CPU time beyond the reference's.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Env } from "../../netlify/lib/platform/config.ts";
import { buildFunctions, type BuiltFunction } from "../build-functions.ts";
import { buildDeployed, FLOOR, FLOOR_CRYPTO, type DeployedFunction } from "./deployed-functions.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { BUDGET, IMPORT_RUNS, WATCHED_PACKAGES } from "./settings.ts";
import { kb, ms, stats } from "./stats.ts";

const exec = promisify(execFile);

/** Imports one module and prints how long that took, and the CPU time it took (all of the
 * process's threads; a busy machine moves it far less than the wall time); in a fresh process. */
const IMPORT_RUNNER = `const cpu = process.cpuUsage();
const start = performance.now();
await import(process.argv[2]);
const wall = performance.now() - start;
const used = process.cpuUsage(cpu);
process.stdout.write(wall + " " + (used.user + used.system) / 1000);
`;

type Measured = Omit<DeployedFunction, "entry"> & {
  shippedBytes: number;
  importMs: number;
  importRuns: number[];
  importCpuMs: number;
};

interface ColdStart extends Measured {
  /** CPU time of the import beyond the floor + node:crypto's (the judged figure). */
  ownCpuMs: number;
  importPass: boolean;
  sizePass: boolean;
  /** Packages in the code a cold start loads, and those only in chunks that load on demand
   * (from esbuild's metafile of the same build, scripts/build-functions.ts). */
  coldStartPackages: string[];
  onDemandPackages: string[];
  lazyPass: boolean;
}

interface ColdStarts {
  method: string;
  buildSeconds: number;
  /** Importing an empty module the same way: what Node itself costs. */
  emptyModuleMs: number;
  emptyModuleCpuMs: number;
  floor: Measured;
  /** The floor with node:crypto (deployed-functions.ts): Node's share of every function's import. */
  floorCrypto: Measured;
  functions: ColdStart[];
}

/** Imports each module IMPORT_RUNS times, each in a fresh Node process. Round-robin across the
 * modules, so that a busy moment on the machine weighs on all of them alike. */
async function importTimes(runner: string, entries: readonly string[]): Promise<{ wall: number[]; cpu: number[] }[]> {
  const times = entries.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let run = 0; run < IMPORT_RUNS; run++) {
    for (const [i, entry] of entries.entries()) {
      // A bare environment: the top level of a function must need none.
      const { stdout } = await exec(process.execPath, [runner, pathToFileURL(entry).href], {
        env: { PATH: process.env.PATH ?? "" },
        timeout: 20_000,
      });
      const [wall, cpu] = stdout.split(" ").map(Number);
      times[i]!.wall.push(wall!);
      times[i]!.cpu.push(cpu!);
    }
  }
  return times;
}

function measured({ entry: _entry, ...f }: DeployedFunction, runs: { wall: number[]; cpu: number[] }): Measured {
  return {
    ...f,
    shippedBytes: f.codeBytes + f.packagesBytes,
    importMs: stats(runs.wall).p50,
    importRuns: runs.wall,
    importCpuMs: stats(runs.cpu).p50,
  };
}

function judge(f: Measured, floorCrypto: Measured, loads: BuiltFunction | undefined): ColdStart {
  const ownCpuMs = f.importCpuMs - floorCrypto.importCpuMs;
  const importBudget = `<= floor + node:crypto + ${BUDGET.coldImportOwnCpuMs} ms CPU (${ms(floorCrypto.importCpuMs + BUDGET.coldImportOwnCpuMs)} ms)`;
  const importPass = check(
    "3 cold start",
    `${f.fn} cold import`,
    `${ms(f.importCpuMs)} ms CPU (+${ms(ownCpuMs)} ms; wall ${ms(f.importMs)} ms)`,
    importBudget,
    ownCpuMs <= BUDGET.coldImportOwnCpuMs,
  );
  const sizePass = check(
    "3 cold start",
    `${f.fn} code + packages`,
    `${kb(f.shippedBytes)} KB`,
    `<= ${kb(BUDGET.shippedBytes)} KB`,
    f.shippedBytes <= BUDGET.shippedBytes,
  );
  const coldStartPackages = loads?.coldStartPackages ?? [];
  const heavy = coldStartPackages.filter((p) => WATCHED_PACKAGES.includes(p));
  const lazyPass = check(
    "3 cold start",
    `${f.fn} heavy packages at cold start`,
    loads ? heavy.join(", ") || "none" : "unknown",
    `none of ${WATCHED_PACKAGES.join(", ")}`,
    loads !== undefined && heavy.length === 0,
  );
  return {
    ...f,
    ownCpuMs,
    importPass,
    sizePass,
    coldStartPackages,
    onDemandPackages: loads?.onDemandPackages ?? [],
    lazyPass,
  };
}

export async function runColdStarts(env: Env): Promise<ColdStarts> {
  const build = await buildDeployed(env);
  try {
    const runner = join(build.dir, "import-runner.mjs");
    const empty = join(build.dir, "empty.mjs");
    await writeFile(runner, IMPORT_RUNNER);
    await writeFile(empty, "export {};\n");
    const all = [build.floor, build.floorCrypto, ...build.functions];
    const [emptyRuns, ...runs] = await importTimes(runner, [empty, ...all.map((f) => f.entry)]);
    const [floor, floorCrypto, ...functions] = all.map((f, i) => measured(f, runs[i]!));
    // What each function loads when: the same build, with esbuild's metafile read.
    const loads = new Map((await buildFunctions(join(build.dir, "loads"))).map((f) => [f.name, f]));
    return {
      method: `netlify build --offline in a copy of the checkout (its build command prebuilds the functions); each zip unzipped; median of ${IMPORT_RUNS} fresh node processes importing <name>.mjs, the module Netlify's entry point imports`,
      buildSeconds: build.buildSeconds,
      emptyModuleMs: stats(emptyRuns!.wall).p50,
      emptyModuleCpuMs: stats(emptyRuns!.cpu).p50,
      floor: floor!,
      floorCrypto: floorCrypto!,
      functions: functions.map((f) => judge(f, floorCrypto!, loads.get(f.fn))),
    };
  } finally {
    await build.cleanup();
  }
}

export function printColdStarts(cold: ColdStarts): void {
  const { floor, floorCrypto, functions } = cold;
  const row = (f: Measured) => [
    kb(f.zipBytes),
    kb(f.packagesBytes),
    kb(f.codeBytes),
    kb(f.shippedBytes),
    ms(f.importCpuMs),
    ms(f.importMs),
    `${ms(Math.min(...f.importRuns))}-${ms(Math.max(...f.importRuns))}`,
  ];
  printTable(
    `(3) Cold start of the deployed functions: netlify build --offline, zips unzipped, median import of <name>.mjs over ${IMPORT_RUNS} fresh node processes, round-robin ` +
      `(budget: CPU time of the import <= the floor + node:crypto's + ${BUDGET.coldImportOwnCpuMs} ms; code + packages <= ${kb(BUDGET.shippedBytes)} KB; KB = 1000 B, uncompressed but for the zip)`,
    [
      "function",
      "zip KB",
      "packages KB",
      "code KB",
      "shipped KB",
      "cpu ms",
      "wall ms",
      "wall min-max ms",
      "cpu over ref ms",
      "size",
      "import",
      "lazy",
    ],
    [
      ...functions.map((f) => [
        f.fn,
        ...row(f),
        `+${ms(f.ownCpuMs)}`,
        verdict(f.sizePass),
        verdict(f.importPass),
        verdict(f.lazyPass),
      ]),
      [`${FLOOR} (floor: imports only @netlify/blobs)`, ...row(floor), "", "", "", ""],
      [`${FLOOR_CRYPTO} (reference: the floor + node:crypto)`, ...row(floorCrypto), "0", "", "", ""],
      ["(an empty module)", "", "", "", "", ms(cold.emptyModuleCpuMs), ms(cold.emptyModuleMs), "", "", "", "", ""],
    ],
  );
  say(
    `cpu: process.cpuUsage() in the child around the import (user + system, all threads); wall printed beside it, not judged`,
  );
  say(
    `every zip also carries Netlify's bootstrap, ${kb(floor.bootstrapBytes)} KB uncompressed, not counted; netlify build took ${cold.buildSeconds.toFixed(0)} s`,
  );
  for (const f of functions) {
    const onDemand = f.onDemandPackages.filter((p) => WATCHED_PACKAGES.includes(p));
    say(
      `${f.fn}: loads ${f.coldStartPackages.join(", ") || "no package"} at cold start${onDemand.length > 0 ? `; on demand: ${onDemand.join(", ")}` : ""}`,
    );
  }
}

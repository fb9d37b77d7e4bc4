// (7) The resource-server API (netlify-indieauth/resource), as a blog's own function uses it:
//   - verification in-process against the local Blobs server, its storage operations counted
//     like section (2)'s: p50 <= its storage floor (its storage replayed bare right after each
//     call) + 1 ms, and a token check's round trips and operations (settings.ts STORAGE_BUDGET);
//   - the entry's cold import as bundled for deployment (esbuild, minified, packages left as
//     imports), median of fresh Node processes, against a floor module that imports only
//     @netlify/blobs bundled the same way: <= floor + 5 ms. The file `npm pack` ships (the same
//     bundle, not minified) is reported beside it.
import { execFile } from "node:child_process";
import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import { resourceServer } from "../../netlify/lib/resource/index.ts";
import { bearer, BASE } from "../../test/helpers/requests.ts";
import { resourceBundle } from "../build-resource.ts";
import { bareBlobs, replayBare, type BareBlobs } from "./bare-blobs.ts";
import { benchEnv, benchRuntime, issueGrants, operations, typicalGrantRecord } from "./calls.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { BUDGET, CALLS, IMPORT_RUNS, KB, ROOT, STORAGE_BUDGET, WARMUP } from "./settings.ts";
import { kb, ms, stats, type Stats } from "./stats.ts";
import { judgeStorage, opSummaryText, storageBudgetText, summarizeOps, type OpSummary } from "./storage-operations.ts";
import { countsOf, roundTrips } from "./critical-path.ts";
import type { OperationCounts } from "../../test/helpers/counting-store.ts";

const SECTION = "7 resource API";
/** The entry's cold import may cost at most this much more than the floor with node:crypto:
 * checking a token hashes it, so any token check loads node:crypto (about 3 ms here, which the
 * bare floor does not pay; the same reference as the functions' budget, docs/performance.md). */
const COLD_IMPORT_OVER_FLOOR_MS = 5;
const FLOOR_SOURCE = `import { getStore } from "@netlify/blobs";\nexport default async () => new Response(typeof getStore);\n`;
const FLOOR_CRYPTO_SOURCE = `import { getStore } from "@netlify/blobs";\nimport { createHash } from "node:crypto";\nexport default async () => new Response(typeof getStore + typeof createHash);\n`;
const IMPORT_RUNNER = `const start = performance.now();\nawait import(process.argv[2]);\nprocess.stdout.write(String(performance.now() - start));\n`;

interface Timed {
  name: string;
  stats: Stats;
  ops: OpSummary;
  floorMs: number;
  budgetMs: number;
  pass: boolean;
  opsPass: boolean;
}

interface ColdImport {
  name: string;
  bytes: number;
  importMs: number;
  runs: number[];
}

interface ResourceBench {
  verification: Timed[];
  coldImport: {
    method: string;
    entry: ColdImport;
    shipped: ColdImport;
    floor: ColdImport;
    floorCrypto: ColdImport;
    empty: ColdImport;
    budgetMs: number;
    pass: boolean;
  };
}

/** Times `call` like section (1) times an endpoint: counted operations, a paired bare get. */
async function timeCall(name: string, call: (i: number) => Promise<unknown>, reference: BareBlobs): Promise<Timed> {
  const times: number[] = [];
  const counts: OperationCounts[] = [];
  const floors: number[] = [];
  const allRoundTrips: number[] = [];
  for (let i = 0; i < WARMUP + CALLS; i++) {
    operations.reset();
    const start = performance.now();
    await call(i);
    const elapsed = performance.now() - start;
    const trace = operations.settled();
    counts.push(countsOf(trace));
    allRoundTrips.push(roundTrips(trace));
    if (i < WARMUP) continue;
    times.push(elapsed);
    floors.push(await replayBare(reference, trace));
  }
  const s = stats(times);
  const ops = summarizeOps(counts, allRoundTrips);
  // The floor: each call's storage replayed bare right after it, as section (1)'s.
  const floorMs = stats(floors).p50;
  const budgetMs = floorMs + BUDGET.ownCpuMs;
  const pass = check(
    SECTION,
    name,
    `p50 ${ms(s.p50)} ms`,
    `<= floor ${ms(floorMs)} + ${BUDGET.ownCpuMs} ms`,
    s.p50 <= budgetMs,
  );
  const opsPass = judgeStorage(SECTION, name, ops, STORAGE_BUDGET.tokenCheck);
  return { name, stats: s, ops, floorMs, budgetMs, pass, opsPass };
}

async function runVerification(): Promise<Timed[]> {
  const b = await benchRuntime(await benchEnv(), "bench-resource");
  const reference = await bareBlobs(await typicalGrantRecord(b));
  const [issued] = await issueGrants(b, 1);
  const token = issued!.accessToken;
  // A blog function on the server's site: the same store (counted), the wall clock.
  const api = resourceServer({ env: {}, store: b.rt.store, now: b.rt.now });
  const request = () => new Request(`${BASE}/micropub`, { headers: bearer(token) });
  return [
    await timeCall(
      "verifyAccessToken(token), same site",
      async () => {
        if (!(await api.verifyAccessToken(token, { resource: `${BASE}/micropub` })).active)
          throw new Error("the bench's token is not active");
      },
      reference,
    ),
    await timeCall(
      "requireToken(request, create), same site",
      async () => {
        if ((await api.requireToken(request(), { scope: "create", resource: "/micropub" })) instanceof Response)
          throw new Error("requireToken refused the bench's token");
      },
      reference,
    ),
  ];
}

const exec = promisify(execFile);

/** Imports each module IMPORT_RUNS times, each in a fresh Node process with a bare
 * environment, round-robin so that a busy moment weighs on all alike. */
async function importTimes(runner: string, modules: readonly string[]): Promise<number[][]> {
  const times = modules.map((): number[] => []);
  for (let run = 0; run < IMPORT_RUNS; run++) {
    for (const [i, module] of modules.entries()) {
      const { stdout } = await exec(process.execPath, [runner, pathToFileURL(module).href], {
        env: { PATH: process.env.PATH ?? "" },
        timeout: 20_000,
      });
      times[i]!.push(Number(stdout));
    }
  }
  return times;
}

async function runColdImport(): Promise<ResourceBench["coldImport"]> {
  // Inside the checkout, so that the bundles' `@netlify/blobs` resolves from its node_modules.
  const dir = join(ROOT, "test", "output", "bench-resource");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    const floorSource = join(dir, "floor-source.mjs");
    const floorCryptoSource = join(dir, "floor-crypto-source.mjs");
    await writeFile(floorSource, FLOOR_SOURCE);
    await writeFile(floorCryptoSource, FLOOR_CRYPTO_SOURCE);
    const files = {
      entry: join(dir, "resource.min.mjs"),
      shipped: join(dir, "resource.mjs"),
      floor: join(dir, "floor.min.mjs"),
      floorCrypto: join(dir, "floor-crypto.min.mjs"),
      empty: join(dir, "empty.mjs"),
    };
    await build({ ...resourceBundle(true), outfile: files.entry });
    await build({ ...resourceBundle(false), outfile: files.shipped });
    await build({ ...resourceBundle(true), entryPoints: [floorSource], outfile: files.floor });
    await build({ ...resourceBundle(true), entryPoints: [floorCryptoSource], outfile: files.floorCrypto });
    await writeFile(files.empty, "export {};\n");
    const runner = join(dir, "import-runner.mjs");
    await writeFile(runner, IMPORT_RUNNER);
    const names = Object.keys(files) as (keyof typeof files)[];
    const runs = await importTimes(
      runner,
      names.map((n) => files[n]),
    );
    const sizes = await Promise.all(names.map(async (n) => (await stat(files[n])).size));
    const measured = Object.fromEntries(
      names.map((n, i) => [n, { name: n, bytes: sizes[i]!, importMs: stats(runs[i]!).p50, runs: runs[i]! }]),
    ) as Record<keyof typeof files, ColdImport>;
    const budgetMs = measured.floorCrypto.importMs + COLD_IMPORT_OVER_FLOOR_MS;
    const pass = check(
      SECTION,
      "netlify-indieauth/resource cold import",
      `${ms(measured.entry.importMs)} ms (floor + node:crypto ${ms(measured.floorCrypto.importMs)} ms; bare floor ${ms(measured.floor.importMs)} ms)`,
      `<= floor + node:crypto + ${COLD_IMPORT_OVER_FLOOR_MS} ms (${ms(budgetMs)} ms)`,
      measured.entry.importMs <= budgetMs,
    );
    return {
      method: `esbuild bundle (minified, packages as imports) of netlify/lib/resource/index.ts, of a module importing only @netlify/blobs, and of one importing it and node:crypto; median of ${IMPORT_RUNS} fresh node processes each`,
      ...measured,
      budgetMs,
      pass,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function printResource(result: ResourceBench): void {
  printTable(
    `(7) netlify-indieauth/resource in a blog's function (${CALLS} calls after ${WARMUP} warm-up; budget p50 <= storage floor + ${BUDGET.ownCpuMs} ms; ${storageBudgetText(STORAGE_BUDGET.tokenCheck)})`,
    ["", "p50 ms", "p95 ms", "ops r/w/d/l", "floor ms", "budget ms", "ops", "time"],
    result.verification.map((v) => [
      v.name,
      ms(v.stats.p50),
      ms(v.stats.p95),
      opSummaryText(v.ops),
      ms(v.floorMs),
      ms(v.budgetMs),
      verdict(v.opsPass),
      verdict(v.pass),
    ]),
  );
  const { entry, shipped, floor, floorCrypto, empty, budgetMs, pass } = result.coldImport;
  const row = (label: string, c: ColdImport, judged?: boolean) => [
    label,
    kb(c.bytes),
    ms(c.importMs),
    `${ms(Math.min(...c.runs))}-${ms(Math.max(...c.runs))}`,
    judged === undefined ? "" : verdict(judged),
  ];
  printTable(
    `(7) Cold import of the entry, bundled for deployment, median of ${IMPORT_RUNS} fresh node processes (budget <= floor + node:crypto + ${COLD_IMPORT_OVER_FLOOR_MS} ms = ${ms(budgetMs)} ms; KB = ${KB} B)`,
    ["module", "KB", "import ms", "min-max ms", ""],
    [
      row("netlify-indieauth/resource (minified)", entry, pass),
      row("  as npm pack ships it (not minified; info)", shipped),
      row("floor + node:crypto (what any token check loads)", floorCrypto),
      row("bare floor: imports only @netlify/blobs", floor),
      row("(an empty module)", empty),
    ],
  );
  say(
    "the entry imports @netlify/blobs and node:crypto only; no sign-in, discovery or WebAuthn code (test/unit/resource-entry.test.ts asserts it).",
  );
}

/** Section (7): measures, prints, and returns the numbers for bench.json. */
export async function benchResource(): Promise<ResourceBench> {
  const result = { verification: await runVerification(), coldImport: await runColdImport() };
  printResource(result);
  return result;
}

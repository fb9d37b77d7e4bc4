// `npm run bench`: how fast and how lean each endpoint is, against the performance budgets.
// A benchmark, not a timed test: it prints one table per section, writes every number to
// test/output/bench.json, prints MISS for each budget missed and exits 1 if any is (0 otherwise).
//   1. handler time per endpoint, in-process against a real local Blobs server: p50 <= its storage
//      floor (its storage replayed bare in the same shape, right after it) + 1 ms of own CPU;  handler-time.ts
//   2. round trips in sequence and operations per request, counted by a store wrapped around the
//      handlers', against the least the design needs;  storage-operations.ts, critical-path.ts
//   3. cold start of what Netlify deploys: netlify build's zips, unzipped, imported in fresh
//      Node processes: CPU time of the import <= the floor (@netlify/blobs) + node:crypto's + 3 ms;  cold-start.ts
//   4. scale: introspection with 10 grants stored versus 10,000, and 200 at once;  scale.ts
//   8. the owner's console at 10, 1,000 and 10,000 grants, and revoke-all at 10,000;  owner-scale.ts
//   5. the sign-in page: bytes of HTML+CSS+JS+icon, and no request to another origin.  sign-in-page.ts
//   6. parse cost: reading hostile and real client pages, <= 100 ms each.  parse-cost.ts
//  10. what a user feels: a whole sign-in, a refresh and a token check with 30 ms added to every
//      storage request (the production Blobs double); round trips in sequence per step <= the
//      design's minimum.  user-felt.ts
//   9. bursts under netlify dev (what `npm start` runs): 200 requests at once, the product beside
//      a floor function; reported, not judged. Its own table in the doc, written by any run of
//      it (`--only burst` too).  burst.ts
// The figures in docs/performance.md are written between its bench markers by each full run,
// with the run's JSON beside it as docs/bench.json (doc-blocks.ts, doc-table.ts).
// Nothing reaches the network: client discovery is stubbed and Blobs is local.
// `--json-only` prints the JSON document instead of the tables. `--only cold-start` (or any of
// settings.ts's SECTIONS, comma-separated) runs those sections alone: their budgets still decide
// the exit code, their numbers go to test/output/bench-<sections>.json, and the doc's tables
// (which need every section) are left as they are, but for the bursts'.
import { mkdir, writeFile } from "node:fs/promises";
import { arch, cpus, loadavg, platform, release, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { startBlobsProcess } from "./blobs-process.ts";
import { bareBlobs } from "./bare-blobs.ts";
import { benchEnv, benchRuntime, typicalGrantRecord } from "./calls.ts";
import { printColdStarts, runColdStarts } from "./cold-start.ts";
import { measurePassword, printEndpoints, runEndpoints } from "./handler-time.ts";
import { printParseCost, runParseCost } from "./parse-cost.ts";
import { checks, say } from "./report.ts";
import { printScale, runScale } from "./scale.ts";
import { printOwnerScale, runOwnerScale } from "./owner-scale.ts";
import { BLOCKS, docFigures, writeDocBlocks, type BlockName } from "./doc-blocks.ts";
import type { BenchFigures } from "./doc-table.ts";
import { printBurst, runBurst, type BurstResult } from "./burst.ts";
import { BUDGET, CALLS, IMPORT_RUNS, jsonOnly, KB, onlySections, OUTPUT, WARMUP, type Section } from "./settings.ts";
import { printSignInPage, runSignInPage } from "./sign-in-page.ts";
import { printUserFelt, runUserFelt } from "./user-felt.ts";
import { printStorage } from "./storage-operations.ts";

function machine(): Record<string, string | number> {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${platform()} ${release()} ${arch()}`,
    cpuModel: cpu[0]?.model ?? "unknown",
    cores: cpu.length,
    memoryGB: Math.round(totalmem() / 2 ** 30),
    // Other work on the machine moves every timing: recorded so that a reader can tell.
    loadAverage1mAtStart: loadavg()[0] ?? 0,
  };
}

async function sections(only: readonly Section[] | null): Promise<Record<string, unknown>> {
  const runs = (section: Section) => only === null || only.includes(section);
  const env = await benchEnv();
  const results: Record<string, unknown> = {};
  if (runs("endpoints")) {
    const core = await benchRuntime(env, "bench");
    const account = await benchRuntime(env, "bench-account");
    // The bare operations move a record of a grant's real size.
    const reference = await bareBlobs(await typicalGrantRecord(core));
    const { bare, endpoints } = await runEndpoints(core, account, reference);
    const password = await measurePassword(await benchRuntime(env, "bench-password"), reference);
    printEndpoints(bare, endpoints, password);
    printStorage(endpoints, password);
    Object.assign(results, { bareOperations: bare, endpoints, password });
  }
  if (runs("cold-start")) printColdStarts((results.coldStart = await runColdStarts(env)));
  if (runs("scale")) printScale((results.scale = await runScale(env)));
  if (runs("owner")) printOwnerScale((results.owner = await runOwnerScale(env)));
  if (runs("sign-in-page")) printSignInPage((results.signInPage = await runSignInPage(env)));
  if (runs("parse-cost")) printParseCost((results.parseCost = await runParseCost()));
  if (runs("resource")) results.resource = await (await import("./resource.ts")).benchResource();
  if (runs("user-felt")) printUserFelt((results.userFelt = await runUserFelt()));
  // Last: it floods the machine, which would weigh on every timing after it.
  if (runs("burst")) printBurst((results.burst = await runBurst()));
  return results;
}

async function main(): Promise<number> {
  const started = performance.now();
  const only = onlySections();
  const info = machine();
  say(
    `IndieAuth benchmark: node ${info.node}, ${info.cpuModel}, ${info.cores} cores, ${info.platform}, load ${Number(info.loadAverage1mAtStart).toFixed(2)}`,
  );

  const blobs = await startBlobsProcess("bench");
  // The context must be set before the first Blobs operation.
  process.env.NETLIFY_BLOBS_CONTEXT = blobs.context;
  let results: Record<string, unknown>;
  try {
    results = await sections(only);
  } finally {
    await blobs.stop();
  }

  const misses = checks.filter((c) => !c.pass);
  const seconds = (performance.now() - started) / 1000;
  const loadAtEnd = loadavg()[0] ?? 0;
  const generatedAt = new Date().toISOString();
  // The bursts carry their run's date and machine: a run of that section alone writes their table.
  if (results.burst) results.burst = { ...(results.burst as BurstResult), generatedAt, machine: info };
  const document = {
    generatedAt,
    machine: info,
    settings: { calls: CALLS, warmup: WARMUP, importRuns: IMPORT_RUNS, kilobyte: KB },
    budgets: BUDGET,
    ...results,
    checks,
    misses,
    seconds,
    loadAverage1mAtEnd: loadAtEnd,
  };
  const output = only ? join(dirname(OUTPUT), `bench-${only.join("+")}.json`) : OUTPUT;
  await mkdir(dirname(output), { recursive: true });
  await writeFile(output, `${JSON.stringify(document, null, 2)}\n`);
  // The doc's figures come from a full run, never copied by hand (with its JSON beside them,
  // docs/bench.json); the bursts' from any run of theirs, merged into the last full run's.
  if (!only) await writeDocBlocks(document as unknown as BenchFigures, Object.keys(BLOCKS) as BlockName[]);
  else if (results.burst)
    await writeDocBlocks({ ...(await docFigures()), burst: results.burst as BenchFigures["burst"] }, ["burst"]);

  if (jsonOnly) {
    console.log(JSON.stringify(document, null, 2));
  } else {
    say();
    for (const miss of misses) say(`MISS [${miss.section}] ${miss.subject}: ${miss.measured} (budget ${miss.budget})`);
    if (loadAtEnd > cpus().length / 2)
      say(
        `note: load average ${loadAtEnd.toFixed(2)} on ${cpus().length} cores at the end: other work was running, timings are noisy.`,
      );
    const untouched = only
      ? ` (only ${only.join(", ")}; docs/performance.md ${results.burst ? "and docs/bench.json have the bursts' figures of this run, the rest untouched" : "untouched"})`
      : "";
    say(
      `bench: ${checks.length - misses.length}/${checks.length} budgets met, ${misses.length} missed, in ${seconds.toFixed(0)} s; numbers in ${relative(process.cwd(), output)}${untouched}`,
    );
  }
  return misses.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error("bench failed:", error);
    process.exit(1);
  },
);

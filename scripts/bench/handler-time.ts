// (1) Handler time per endpoint, in-process against the local Blobs server, beside the bare
// Blobs operations on the same server: p50 <= storage floor + 1 ms of own CPU, the floor being
// the operations on the call's critical path (critical-path.ts: those done one after another;
// operations done at once count once), each at its bare p50. The same calls give section (2)
// its round trips and operation counts.
import { performance } from "node:perf_hooks";
import { verifyPassword } from "../../netlify/lib/owner/password.ts";
import type { OperationCounts } from "../../test/helpers/counting-store.ts";
import { TEST_PASSWORD } from "../../test/helpers/env.ts";
import {
  BARE_KINDS,
  pooledBare,
  replayBare,
  sampleBareOperations,
  warmUpBlobs,
  type BareBlobs,
  type BareOperations,
} from "./bare-blobs.ts";
import { operations, type Bench } from "./calls.ts";
import { countsOf, roundTrips } from "./critical-path.ts";
import { endpointCases, finishDeferredWork, passwordApproveCase, type EndpointCase } from "./endpoint-cases.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { BUDGET, CALLS, PASSWORD_CALLS, WARMUP, type StorageBudget } from "./settings.ts";
import { ms, sample, stats, type Stats } from "./stats.ts";
import { judgeStorage, opSummaryText, roundTripsText, summarizeOps, type OpSummary } from "./storage-operations.ts";

interface EndpointResult {
  name: string;
  fn: string;
  stats: Stats;
  ops: OpSummary;
  floorMs: number;
  ratioToGet: number;
  budgetMs: number;
  pass: boolean;
  storageBudget?: StorageBudget;
  storagePass?: boolean;
}

interface MeasuredEndpoint {
  stats: Stats;
  ops: OpSummary;
  /** Each timed call's storage replayed bare right after it (replayBare): its floor, measured. */
  floors: number[];
}

async function measureEndpoint(
  c: EndpointCase,
  bare: BareBlobs,
  calls = CALLS,
  warmup = WARMUP,
): Promise<MeasuredEndpoint> {
  const times: number[] = [];
  const ops: OperationCounts[] = [];
  const floors: number[] = [];
  const allRoundTrips: number[] = [];
  for (let i = 0; i < warmup + calls; i++) {
    const req = c.request(i);
    operations.reset();
    const start = performance.now();
    const response = await c.handle(req);
    const elapsed = performance.now() - start;
    // The operations the answer waited for: what was handed over for after it (the connection
    // log) is neither timed nor counted here; docs/performance.md says what it costs.
    const trace = operations.settled();
    await finishDeferredWork();
    ops.push(countsOf(trace));
    allRoundTrips.push(roundTrips(trace));
    await c.check(response);
    if (i < warmup) continue;
    times.push(elapsed);
    floors.push(await replayBare(bare, trace));
  }
  return { stats: stats(times), ops: summarizeOps(ops, allRoundTrips), floors };
}

function judgeEndpoint(c: EndpointCase, measured: MeasuredEndpoint, bare: BareOperations): EndpointResult {
  const { stats: s, ops } = measured;
  // The local server's conditional write holds its key's lock, and one against a version reads
  // the record again under it (production's is one atomic call): the replay does the same, so
  // that is storage, not the endpoint's time.
  const floorMs = stats(measured.floors).p50;
  const budgetMs = floorMs + BUDGET.ownCpuMs;
  const pass = check(
    "1 endpoints",
    c.name,
    `p50 ${ms(s.p50)} ms`,
    `<= floor ${ms(floorMs)} + ${BUDGET.ownCpuMs} ms`,
    s.p50 <= budgetMs,
  );
  const result: EndpointResult = {
    name: c.name,
    fn: c.fn,
    stats: s,
    ops,
    floorMs,
    ratioToGet: s.p50 / bare.get.p50,
    budgetMs,
    pass,
  };
  if (c.storageBudget) {
    result.storageBudget = c.storageBudget;
    result.storagePass = judgeStorage("2 storage", c.name, ops, c.storageBudget);
  }
  return result;
}

export async function runEndpoints(
  b: Bench,
  account: Bench,
  reference: BareBlobs,
): Promise<{ bare: BareOperations; endpoints: EndpointResult[] }> {
  await warmUpBlobs(reference);
  const before = await sampleBareOperations(reference, 1);
  const measured: [EndpointCase, MeasuredEndpoint][] = [];
  for (const c of await endpointCases(b, account)) measured.push([c, await measureEndpoint(c, reference)]);
  // Before and after, pooled: the bare reference of the whole section.
  const bare = pooledBare([before, await sampleBareOperations(reference, 2)]);
  return { bare, endpoints: measured.map(([c, m]) => judgeEndpoint(c, m, bare)) };
}

interface PasswordResult {
  algorithm: string;
  parameters: Record<string, number>;
  hash: Stats;
  approve: Stats;
  approveOps: OpSummary;
}

/** The deliberate cost: the password hash alone, and the sign-in POST that pays it. */
export async function measurePassword(b: Bench, bare: BareBlobs): Promise<PasswordResult> {
  const hash = b.config.password;
  if (hash.kind !== "scrypt") throw new Error("the bench hashes with scrypt");
  const hashStats = await sample(
    async () => {
      if (!(await verifyPassword(TEST_PASSWORD, hash))) throw new Error("the password did not verify");
    },
    PASSWORD_CALLS,
    1,
  );
  const measured = await measureEndpoint(await passwordApproveCase(b), bare, PASSWORD_CALLS, 1);
  return {
    algorithm: "scrypt",
    parameters: { N: 2 ** hash.logN, logN: hash.logN, r: hash.r, p: hash.p },
    hash: hashStats,
    approve: measured.stats,
    approveOps: measured.ops,
  };
}

export function printEndpoints(
  bare: BareOperations,
  endpoints: readonly EndpointResult[],
  password: PasswordResult,
): void {
  printTable(
    `(1) Handler time, in-process, local Blobs server (${CALLS} calls after ${WARMUP} warm-up; budget p50 <= storage floor + ${BUDGET.ownCpuMs} ms)`,
    ["", "p50 ms", "p95 ms", "round trips", "ops r/w/d/l", "floor ms", "x get", "budget ms", ""],
    [
      ...BARE_KINDS.map((op) => [
        `bare Blobs ${op}`,
        ms(bare[op].p50),
        ms(bare[op].p95),
        "",
        "",
        "",
        op === "get" ? "1.00" : (bare[op].p50 / bare.get.p50).toFixed(2),
        "",
        "",
      ]),
      ...endpoints.map((e) => [
        e.name,
        ms(e.stats.p50),
        ms(e.stats.p95),
        roundTripsText(e.ops),
        opSummaryText(e.ops),
        ms(e.floorMs),
        e.ratioToGet.toFixed(2),
        ms(e.budgetMs),
        verdict(e.pass),
      ]),
    ],
  );
  say(
    `bare: ${2 * CALLS} calls of each, before and after the endpoints. floor: p50 of each call's storage replayed bare right after it (same`,
  );
  say(
    `load), each operation begun when those it waited for had settled (round trips: the longest such chain); x get: endpoint p50 / bare get p50.`,
  );
  const { N, r, p } = password.parameters;
  say(
    `password hash (deliberate, not budgeted): scrypt N=2^${password.parameters.logN} (${N}) r=${r} p=${p}: p50 ${ms(password.hash.p50)} ms over ${password.hash.n}`,
  );
  say(
    `sign-in POST with the password (info): p50 ${ms(password.approve.p50)} ms over ${password.approve.n}, ops ${opSummaryText(password.approveOps)}`,
  );
}

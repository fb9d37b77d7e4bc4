// (8) What owners do, at scale: the console's API with 10, 1,000 and 10,000 grants stored
// (budget: the 10,000 case within 2x the 10 case's p50, and at most 50 storage operations),
// and revoke-all at 10,000 (one call: it ends every token).
import { performance } from "node:perf_hooks";
import type { Env } from "../../netlify/lib/platform/config.ts";
import { consoleGetRequest, consolePostRequest, introspectionRequest } from "../../test/helpers/requests.ts";
import { OPERATION_KINDS, type OperationCounts } from "../../test/helpers/counting-store.ts";
import { ACCOUNT_API } from "../../netlify/lib/pages/paths.ts";
import { benchRuntime, endpoints, operations, ownerGrants, seedAccount } from "./calls.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { IP, USER_AGENT } from "./settings.ts";
import { ms, stats, type Stats } from "./stats.ts";

export const OWNER_GRANTS = [10, 1_000, 10_000] as const;
export const OWNER_BUDGET = { ratio: 2, operations: 50 } as const;
const CALLS = 60;
const WARMUP = 6;

const total = (ops: OperationCounts) => OPERATION_KINDS.reduce((sum, kind) => sum + ops[kind], 0);

interface ConsoleAt {
  grants: number;
  stats: Stats;
  operations: number;
  seedSeconds: number;
}

export interface OwnerScaleResult {
  console: ConsoleAt[];
  ratio: number;
  revokeAll: { grants: number; ms: number; operations: number; tokensInactive: boolean };
}

const caller = { ip: IP, userAgent: USER_AGENT };

export async function runOwnerScale(env: Env): Promise<OwnerScaleResult> {
  const results: ConsoleAt[] = [];
  let revokeAll: OwnerScaleResult["revokeAll"] | undefined;
  for (const count of OWNER_GRANTS) {
    const b = await benchRuntime(env, `bench-owner-${count}`);
    const seedStart = performance.now();
    const grants = await ownerGrants(b, count);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const cookie = await seedAccount(b);
    const times: number[] = [];
    let most = 0;
    for (let i = 0; i < WARMUP + CALLS; i++) {
      operations.reset();
      const start = performance.now();
      const response = await endpoints.account(consoleGetRequest({ cookie }), b.rt, caller);
      const elapsed = performance.now() - start;
      if (response.status !== 200) throw new Error(`account API at ${count} grants: ${response.status}`);
      await response.arrayBuffer();
      most = Math.max(most, total(operations.snapshot()));
      if (i >= WARMUP) times.push(elapsed);
    }
    results.push({ grants: count, stats: stats(times), operations: most, seedSeconds });
    if (count === OWNER_GRANTS[OWNER_GRANTS.length - 1]) {
      operations.reset();
      const start = performance.now();
      const response = await endpoints.account(consolePostRequest(ACCOUNT_API, "/revoke", { app: "all" }, { cookie }), b.rt, caller);
      const elapsed = performance.now() - start;
      if (response.status !== 200) throw new Error(`revoke-all: ${response.status}`);
      const ops = total(operations.snapshot());
      const sample = grants.filter((_, i) => i % 97 === 0);
      const answers = await Promise.all(sample.map(async (g) => ((await (await endpoints.introspect(introspectionRequest(g.accessToken), b.rt)).json()) as { active: boolean }).active));
      revokeAll = { grants: count, ms: elapsed, operations: ops, tokensInactive: answers.every((a) => !a) };
    }
  }
  const small = results[0]!;
  const large = results[results.length - 1]!;
  const ratio = large.stats.p50 / small.stats.p50;
  check("8 owner", `account API p50, ${large.grants} vs ${small.grants} grants`, ratio.toFixed(2), `<= ${OWNER_BUDGET.ratio}`, ratio <= OWNER_BUDGET.ratio);
  for (const r of results) check("8 owner", `account API storage operations at ${r.grants} grants`, String(r.operations), `<= ${OWNER_BUDGET.operations}`, r.operations <= OWNER_BUDGET.operations);
  const revoked = revokeAll!;
  check("8 owner", `revoke-all at ${revoked.grants} grants: storage operations`, String(revoked.operations), `<= ${OWNER_BUDGET.operations}`, revoked.operations <= OWNER_BUDGET.operations);
  check("8 owner", `revoke-all at ${revoked.grants} grants: tokens inactive after`, revoked.tokensInactive ? "all sampled" : "some active", "all", revoked.tokensInactive);
  return { console: results, ratio, revokeAll: revoked };
}

export function printOwnerScale(result: OwnerScaleResult): void {
  printTable(
    `(8) The owner's console at scale (budget: ${OWNER_GRANTS[2]} grants <= ${OWNER_BUDGET.ratio}x the ${OWNER_GRANTS[0]}-grant p50, <= ${OWNER_BUDGET.operations} storage operations)`,
    ["", "p50 ms", "p95 ms", "ops (max)", ""],
    [
      ...result.console.map((r) => [`GET ${ACCOUNT_API}, ${r.grants} grants`, ms(r.stats.p50), ms(r.stats.p95), String(r.operations), verdict(r.operations <= OWNER_BUDGET.operations)]),
      ["ratio largest / smallest", result.ratio.toFixed(2), "", "", verdict(result.ratio <= OWNER_BUDGET.ratio)],
      [`revoke-all, ${result.revokeAll.grants} grants`, ms(result.revokeAll.ms), "", String(result.revokeAll.operations), verdict(result.revokeAll.tokensInactive && result.revokeAll.operations <= OWNER_BUDGET.operations)],
    ],
  );
  say(`seeding took ${result.console.map((r) => `${r.seedSeconds.toFixed(1)} s`).join(" / ")}; revoke-all answered in one call, every sampled token then introspected inactive: ${result.revokeAll.tokensInactive}`);
}

// (4) Scale: introspection with 10 grants stored versus 10,000, and 200 at once.
import { performance } from "node:perf_hooks";
import type { Env } from "../../netlify/lib/platform/config.ts";
import type { FullRuntime } from "../../test/helpers/runtime.ts";
import { introspectionRequest } from "../../test/helpers/requests.ts";
import { benchRuntime, endpoints, storedGrants } from "./calls.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { BUDGET, CALLS, WARMUP } from "./settings.ts";
import { ms, stats, type Stats } from "./stats.ts";

interface ScaleResult {
  small: { grants: number; stats: Stats };
  large: { grants: number; stats: Stats; seedSeconds: number };
  ratio: number;
  concurrent: { calls: number; ok: number; wallMs: number; stats: Stats; failures: string[] };
}

async function introspectOnce(rt: FullRuntime, token: string): Promise<{ ms: number; ok: boolean; detail: string }> {
  const req = introspectionRequest(token);
  const start = performance.now();
  const response = await endpoints.introspect(req, rt);
  const elapsed = performance.now() - start;
  const body = (await response.json()) as { active?: unknown };
  return {
    ms: elapsed,
    ok: response.status === 200 && body.active === true,
    detail: `${response.status} ${JSON.stringify(body)}`,
  };
}

export async function runScale(env: Env): Promise<ScaleResult> {
  const small = await benchRuntime(env, "bench-scale-small");
  const large = await benchRuntime(env, "bench-scale-large");
  const smallTokens = (await storedGrants(small, BUDGET.scaleSmall)).map((t) => t.accessToken);
  const seedStart = performance.now();
  const largeTokens = (await storedGrants(large, BUDGET.scaleLarge)).map((t) => t.accessToken);
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // Alternating rounds, so that drift on the machine weighs on both sides alike.
  const rounds = 5;
  const perRound = Math.ceil(CALLS / rounds);
  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  let call = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [b, tokens, times] of [
      [small, smallTokens, smallTimes],
      [large, largeTokens, largeTimes],
    ] as const) {
      for (let i = 0; i < WARMUP / rounds + perRound; i++) {
        // A stride through the tokens: the large store is read all over, not at one hot key.
        const result = await introspectOnce(b.rt, tokens[(call++ * 7919) % tokens.length]!);
        if (!result.ok) throw new Error(`introspection at scale: ${result.detail}`);
        if (i >= WARMUP / rounds) times.push(result.ms);
      }
    }
  }
  const smallStats = stats(smallTimes);
  const largeStats = stats(largeTimes);
  const ratio = largeStats.p50 / smallStats.p50;
  check(
    "4 scale",
    `introspection p50, ${BUDGET.scaleLarge} vs ${BUDGET.scaleSmall} grants`,
    ratio.toFixed(2),
    `<= ${BUDGET.scaleRatio}`,
    ratio <= BUDGET.scaleRatio,
  );

  const wallStart = performance.now();
  const concurrent = await Promise.all(
    largeTokens.slice(0, BUDGET.concurrent).map((token) =>
      introspectOnce(large.rt, token).catch((error: unknown) => ({
        ms: Number.NaN,
        ok: false,
        detail: String(error),
      })),
    ),
  );
  const wallMs = performance.now() - wallStart;
  const ok = concurrent.filter((r) => r.ok).length;
  check(
    "4 scale",
    `${BUDGET.concurrent} concurrent introspections`,
    `${ok} succeeded`,
    `all ${BUDGET.concurrent}`,
    ok === BUDGET.concurrent,
  );
  return {
    small: { grants: BUDGET.scaleSmall, stats: smallStats },
    large: { grants: BUDGET.scaleLarge, stats: largeStats, seedSeconds },
    ratio,
    concurrent: {
      calls: BUDGET.concurrent,
      ok,
      wallMs,
      stats: stats(concurrent.filter((r) => r.ok).map((r) => r.ms)),
      failures: concurrent
        .filter((r) => !r.ok)
        .slice(0, 5)
        .map((r) => r.detail),
    },
  };
}

export function printScale(scale: ScaleResult): void {
  const { small, large, concurrent } = scale;
  printTable(
    `(4) Scale: POST /introspect (budget: p50 ratio <= ${BUDGET.scaleRatio}; ${BUDGET.concurrent} concurrent all succeed)`,
    ["", "p50 ms", "p95 ms", "calls", ""],
    [
      [`${small.grants} grants stored`, ms(small.stats.p50), ms(small.stats.p95), String(small.stats.n), ""],
      [`${large.grants} grants stored`, ms(large.stats.p50), ms(large.stats.p95), String(large.stats.n), ""],
      ["ratio large / small", scale.ratio.toFixed(2), "", "", verdict(scale.ratio <= BUDGET.scaleRatio)],
      [
        `${concurrent.calls} at once (per call)`,
        ms(concurrent.stats.p50),
        ms(concurrent.stats.p95),
        `${concurrent.ok}/${concurrent.calls} ok`,
        verdict(concurrent.ok === concurrent.calls),
      ],
    ],
  );
  say(
    `seeding ${large.grants} grants took ${large.seedSeconds.toFixed(1)} s (written directly, counted in the app's summary once); the ${concurrent.calls} concurrent calls took ${ms(concurrent.wallMs)} ms wall, max ${ms(concurrent.stats.max)} ms`,
  );
  for (const failure of concurrent.failures) say(`  failed: ${failure}`);
}

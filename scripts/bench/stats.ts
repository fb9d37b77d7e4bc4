// Numbers: percentiles, timing loops, bounded concurrency, and how figures are printed.
import { performance } from "node:perf_hooks";
import { CALLS, KB, WARMUP } from "./settings.ts";

export interface Stats {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1) ?? Number.NaN,
  };
}

export const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
export const kb = (bytes: number) => (bytes / KB).toFixed(1);
export const range = (count: number) => Array.from({ length: count }, (_, i) => i);

/** Runs `work` over the items with at most `limit` in flight (seeding thousands of records). */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(range(Math.min(limit, items.length)).map(worker));
  return results;
}

export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Times `work` warmup + calls times, keeping the last `calls`. */
export async function sampleTimes(
  work: (i: number) => Promise<unknown>,
  calls = CALLS,
  warmup = WARMUP,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < warmup + calls; i++) {
    const elapsed = await timed(() => work(i));
    if (i >= warmup) times.push(elapsed);
  }
  return times;
}

export async function sample(work: (i: number) => Promise<unknown>, calls = CALLS, warmup = WARMUP): Promise<Stats> {
  return stats(await sampleTimes(work, calls, warmup));
}

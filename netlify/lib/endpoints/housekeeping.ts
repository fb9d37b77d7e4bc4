// The hourly housekeeping run: expired records swept (a bounded number per run, resuming where
// the last run stopped), app changes left waiting folded into their summaries, and, until it is
// done, a batch of the app summaries' rebuild.
import { rebuildSummaries } from "../owner/summary-rebuild.ts";
import { sweepExpired } from "../platform/housekeeping.ts";
import { foldAllChanges } from "../protocol/app-summary-fold.ts";
import type { Runtime } from "../platform/runtime.ts";

export async function runHousekeeping(rt: Runtime): Promise<string> {
  const now = rt.now();
  const result = await sweepExpired(rt.store, now);
  await foldAllChanges(rt.store, now);
  const rebuilt = await rebuildSummaries(rt.store, now);
  return `housekeeping: examined ${result.examined}, deleted ${result.deleted}${result.complete ? "" : ", more next run"}${rebuilt ? "" : "; app summaries still being rebuilt"}`;
}

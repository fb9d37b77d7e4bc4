// The hourly housekeeping run: expired records swept (a bounded number per run, resuming where
// the last run stopped), and app changes left waiting folded into their summaries.
import { sweepExpired } from "../platform/expiry-sweep.ts";
import { foldAllChanges } from "../protocol/app-summary-fold.ts";
import type { Runtime } from "../platform/runtime.ts";

export async function runHousekeeping(rt: Runtime): Promise<string> {
  const now = rt.now();
  const result = await sweepExpired(rt.store, now);
  await foldAllChanges(rt.store, now);
  return `housekeeping: examined ${result.examined}, deleted ${result.deleted}${result.complete ? "" : ", more next run"}`;
}

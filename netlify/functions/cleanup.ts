// Hourly: delete expired records, a bounded number per run (the next run goes on where this one
// stopped), and fold app changes left waiting into their summaries (endpoints/hourly-housekeeping.ts).
import type { Config } from "@netlify/functions";
import { runHousekeeping } from "../lib/endpoints/hourly-housekeeping.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default async (): Promise<Response> => {
  console.log(await runHousekeeping(defaultRuntime()));
  return new Response(null, { status: 204 });
};

export const config: Config = { schedule: "@hourly" };

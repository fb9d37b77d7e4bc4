// Hourly: delete expired codes, grants, usage, throttle, session, history and challenge records,
// a bounded number per run (the next run goes on where this one stopped).
import type { Config } from "@netlify/functions";
import { sweepExpired } from "../lib/platform/housekeeping.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default async (): Promise<Response> => {
  const rt = defaultRuntime();
  const result = await sweepExpired(rt.store, rt.now());
  console.log(`housekeeping: examined ${result.examined}, deleted ${result.deleted}${result.complete ? "" : ", more next run"}`);
  return new Response(null, { status: 204 });
};

export const config: Config = { schedule: "@hourly" };

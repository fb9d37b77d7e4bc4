// Daily: delete expired codes, grants, usage, throttle, session, history and challenge records.
import type { Config } from "@netlify/functions";
import { sweepExpired } from "../lib/platform/housekeeping.ts";
import { defaultRuntime } from "../lib/platform/runtime.ts";

export default async (): Promise<Response> => {
  const rt = defaultRuntime();
  const result = await sweepExpired(rt.store, rt.now());
  console.log(`housekeeping: examined ${result.examined}, deleted ${result.deleted}`);
  return new Response(null, { status: 204 });
};

export const config: Config = { schedule: "@daily" };

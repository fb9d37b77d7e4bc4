// (10) The numbers a user feels: on Netlify each storage operation is a network round trip, so
// a sign-in's wall time is mostly round trips in sequence. With the same latency added to every
// storage request (the production Blobs double, test/helpers/production-blobs.ts), the time an
// MCP host waits for a whole sign-in from GET /auth to the token (the owner's typing excluded:
// GET /auth, the sign-in page's request check, POST /auth/approve on a session, POST /token),
// for a refresh, and for one token check (POST /introspect; the resource API). Judged: each
// step's round trips in sequence against the least its design needs (settings.ts
// STORAGE_BUDGET); the times are reported beside that floor (the minimum x the latency).
// The static sign-in page itself is a file on the CDN: no function, no storage.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { trustRunCertificate } from "../../test/helpers/test-tls.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { STORAGE_BUDGET, USER_FELT, type StorageBudget } from "./settings.ts";
import { ms, stats } from "./stats.ts";
import { storageBudgetText } from "./storage-operations.ts";

const exec = promisify(execFile);
const RUNNER = fileURLToPath(new URL("./user-felt-run.ts", import.meta.url));
const SECTION = "10 user-felt";

/** Each step, the flow it belongs to, and the least its design needs. */
export const USER_FELT_STEPS = {
  "GET /auth": { flow: "sign-in", budget: STORAGE_BUDGET.authorizationRequest },
  "POST /auth/approve/check": { flow: "sign-in", budget: STORAGE_BUDGET.requestCheck },
  "POST /auth/approve (session)": { flow: "sign-in", budget: STORAGE_BUDGET.sessionApproval },
  "POST /token (code)": { flow: "sign-in", budget: STORAGE_BUDGET.codeRedemption },
  "POST /token (refresh)": { flow: "refresh", budget: STORAGE_BUDGET.refresh },
  "POST /introspect": { flow: "token check", budget: STORAGE_BUDGET.tokenCheck },
  "resource API requireToken": { flow: "token check (resource API)", budget: STORAGE_BUDGET.tokenCheck },
} as const satisfies Record<string, { flow: string; budget: StorageBudget }>;
export type UserFeltStep = keyof typeof USER_FELT_STEPS;

/** What the runner measured: per step, each timed run's wall time, round trips and operations. */
export interface UserFeltSamples {
  latencyMs: number;
  runs: number;
  steps: Partial<Record<UserFeltStep, { ms: number[]; roundTrips: number[]; operations: number[] }>>;
}

export interface UserFeltStepResult {
  step: UserFeltStep;
  flow: string;
  p50Ms: number;
  roundTrips: number;
  maxRoundTrips: number;
  operations: number;
  minimumRoundTrips: number;
  floorMs: number;
  pass: boolean;
}

export interface UserFeltFlow {
  flow: string;
  p50Ms: number;
  roundTrips: number;
  minimumRoundTrips: number;
  floorMs: number;
}

export interface UserFelt {
  latencyMs: number;
  runs: number;
  steps: UserFeltStepResult[];
  flows: UserFeltFlow[];
}

async function sample(): Promise<UserFeltSamples> {
  const before = { ca: process.env.NODE_EXTRA_CA_CERTS, dir: process.env.INDIEAUTH_TEST_TLS_DIR };
  const cleanup = await trustRunCertificate();
  const childEnv = { ...process.env };
  // Only the runner trusts the run's CA: the sections after this one start as they would have.
  for (const [name, value] of [
    ["NODE_EXTRA_CA_CERTS", before.ca],
    ["INDIEAUTH_TEST_TLS_DIR", before.dir],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    const { stdout } = await exec(
      process.execPath,
      ["--import", "tsx", RUNNER, String(USER_FELT.latencyMs), String(USER_FELT.runs)],
      {
        env: childEnv,
        maxBuffer: 16 * 1024 * 1024,
        timeout: 10 * 60_000,
      },
    );
    return JSON.parse(stdout) as UserFeltSamples;
  } finally {
    await cleanup();
  }
}

export async function runUserFelt(): Promise<UserFelt> {
  const measured = await sample();
  const steps = (Object.keys(USER_FELT_STEPS) as UserFeltStep[]).map((step): UserFeltStepResult => {
    const { flow, budget } = USER_FELT_STEPS[step];
    const s = measured.steps[step];
    if (!s) throw new Error(`the user-felt runner measured no "${step}"`);
    const roundTrips = stats(s.roundTrips).p50;
    const operations = stats(s.operations).p50;
    const pass = roundTrips <= budget.roundTrips && operations <= budget.operations;
    const above = !pass && "above" in budget ? `; above the minimum because ${budget.above}` : "";
    check(
      SECTION,
      `${step} under ${measured.latencyMs} ms per storage operation`,
      `${roundTrips} round trips in sequence, ${operations} operations, p50 ${ms(stats(s.ms).p50)} ms${above}`,
      storageBudgetText(budget),
      pass,
    );
    return {
      step,
      flow,
      p50Ms: stats(s.ms).p50,
      roundTrips,
      maxRoundTrips: stats(s.roundTrips).max,
      operations,
      minimumRoundTrips: budget.roundTrips,
      floorMs: budget.roundTrips * measured.latencyMs,
      pass,
    };
  });
  const flows = [...new Set(steps.map((s) => s.flow))].map((flow): UserFeltFlow => {
    const of = steps.filter((s) => s.flow === flow);
    const sum = (pick: (s: UserFeltStepResult) => number) => of.reduce((total, s) => total + pick(s), 0);
    return {
      flow,
      p50Ms: sum((s) => s.p50Ms),
      roundTrips: sum((s) => s.roundTrips),
      minimumRoundTrips: sum((s) => s.minimumRoundTrips),
      floorMs: sum((s) => s.floorMs),
    };
  });
  return { latencyMs: measured.latencyMs, runs: measured.runs, steps, flows };
}

export function printUserFelt(result: UserFelt): void {
  printTable(
    `(10) What a user feels: ${result.latencyMs} ms added to every storage request (the production Blobs double), median of ${result.runs} runs after one warm-up; budget: round trips in sequence <= the design's minimum`,
    ["", "p50 ms", "round trips", "minimum", "floor ms", "ops", ""],
    [
      ...result.steps.map((s) => [
        s.step,
        ms(s.p50Ms),
        s.roundTrips === s.maxRoundTrips ? String(s.roundTrips) : `${s.roundTrips} (max ${s.maxRoundTrips})`,
        String(s.minimumRoundTrips),
        ms(s.floorMs),
        String(s.operations),
        verdict(s.pass),
      ]),
      ...result.flows.map((f) => [
        `the whole ${f.flow}`,
        ms(f.p50Ms),
        String(f.roundTrips),
        String(f.minimumRoundTrips),
        ms(f.floorMs),
        "",
        "",
      ]),
    ],
  );
  say(
    `floor: the minimum round trips x ${result.latencyMs} ms; a flow's p50 is the sum of its steps' (between steps the host, the browser and the network, not counted).`,
  );
  for (const s of result.steps) {
    const budget: StorageBudget = USER_FELT_STEPS[s.step].budget;
    if (!s.pass)
      say(
        `${s.step}: ${s.roundTrips} round trips where ${budget.roundTrips} would do${"above" in budget && budget.above ? `: ${budget.above}` : ""}`,
      );
  }
}

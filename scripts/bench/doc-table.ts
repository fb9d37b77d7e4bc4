// The tables of docs/performance.md, rendered from a run's JSON document (doc-blocks.ts writes
// them between their markers). Every figure comes from the run; every budget from settings.ts.
import { BURST_CASES, type BurstResult } from "./burst.ts";
import { BUDGET, OWNER_BUDGET, STORAGE_BUDGET, WATCHED_PACKAGES, type StorageBudget } from "./settings.ts";
import type { UserFelt } from "./user-felt.ts";

interface Timed {
  stats: { p50: number };
}
interface Endpoint extends Timed {
  name: string;
  ops: { typical: Record<string, number>; roundTrips: { typical: number } };
  floorMs: number;
  pass: boolean;
  storagePass?: boolean;
}
interface Machine {
  cpuModel: string;
  cores: number;
  node: string;
  loadAverage1mAtStart: number;
}
interface ColdFunction {
  fn: string;
  shippedBytes: number;
  importMs: number;
  importCpuMs: number;
  ownCpuMs: number;
  onDemandPackages: string[];
}
/** What the tables are read from: the bench's JSON document (docs/bench.json). */
export interface BenchFigures {
  generatedAt: string;
  machine: Machine;
  endpoints: readonly Endpoint[];
  password: { approve: { p50: number } };
  scale: { ratio: number };
  coldStart: {
    floor: { importMs: number; importCpuMs: number; shippedBytes: number; bootstrapBytes: number };
    floorCrypto: { importMs: number; importCpuMs: number; shippedBytes: number };
    functions: readonly ColdFunction[];
  };
  owner: {
    console: readonly (Timed & { grants: number; operations: number })[];
    ratio: number;
    revokeAll: { ms: number; operations: number; tokensInactive: boolean };
  };
  signInPage: { totalBytes: number; resources: readonly { url: string; bytes: number; sameOrigin: boolean }[] };
  userFelt: UserFelt;
  burst?: BurstResult & { generatedAt: string; machine: Machine };
}

const fixed = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const kb = (bytes: number) => (bytes / 1000).toFixed(1);
const machineLine = (m: Machine) =>
  `${m.cpuModel}, ${m.cores} cores, ${m.node}, load ${m.loadAverage1mAtStart.toFixed(1)}`;
const written = (generatedAt: string, machine: Machine) =>
  `<!-- written by \`npm run bench\` (${generatedAt}, ${machineLine(machine)}); do not edit by hand -->`;
const totalOps = (ops: Record<string, number>) => Object.values(ops).reduce((sum, n) => sum + n, 0);
const roundTripsOf = (n: number) => `${n} round trip${n === 1 ? "" : "s"}`;
const missed = (miss: boolean, why = "") => (miss ? ` **MISS**${why ? `: ${why}` : ""}` : "");

function endpointOf(figures: BenchFigures, name: string): Endpoint {
  const e = figures.endpoints.find((c) => c.name === name);
  if (!e) throw new Error(`the bench has no case "${name}" for the performance doc`);
  return e;
}

interface Row {
  what: string;
  measured: (f: BenchFigures) => string;
  budget: string;
}

/** An endpoint: its p50 against its storage floor + own CPU, its round trips and operations. */
function endpointRow(what: string, name: string, budget: StorageBudget): Row {
  return {
    what,
    measured: (f) => {
      const e = endpointOf(f, name);
      const storageMiss = e.storagePass === false;
      const above = storageMiss && "above" in budget ? budget.above : "";
      return `p50 ${fixed(e.stats.p50)} ms (floor ${fixed(e.floorMs)} ms)${missed(!e.pass)}; ${roundTripsOf(e.ops.roundTrips.typical)}, ${totalOps(e.ops.typical)} operations${missed(storageMiss, above)}`;
    },
    budget: `floor + ${BUDGET.ownCpuMs} ms; ≤ ${roundTripsOf(budget.roundTrips)}, ≤ ${budget.operations} operations: ${budget.why}`,
  };
}

function consoleAt(f: BenchFigures, index: number): string {
  const c = f.owner.console[index]!;
  return `p50 ${fixed(c.stats.p50)} ms; ${c.operations} storage operations${missed(c.operations > OWNER_BUDGET.operations)}`;
}

export const DOC_ROWS: readonly Row[] = [
  endpointRow("Token check (`POST /introspect`)", "POST /introspect", STORAGE_BUDGET.tokenCheck),
  endpointRow("Legacy verification (`GET /token`)", "GET /token (legacy verification)", STORAGE_BUDGET.tokenCheck),
  endpointRow("`GET /userinfo`", "GET /userinfo", STORAGE_BUDGET.tokenCheck),
  endpointRow(
    "Authorization request (`GET /auth`)",
    "GET /auth (authorization request)",
    STORAGE_BUDGET.authorizationRequest,
  ),
  endpointRow("Code redemption (`POST /token`)", "POST /token (code -> tokens)", STORAGE_BUDGET.codeRedemption),
  endpointRow("Profile redemption (`POST /auth`)", "POST /auth (code -> profile)", STORAGE_BUDGET.profileRedemption),
  endpointRow("Refresh (`POST /token`)", "POST /token (refresh)", STORAGE_BUDGET.refresh),
  endpointRow("Revocation (`POST /revoke`)", "POST /revoke (live token)", STORAGE_BUDGET.revocation),
  endpointRow(
    "Sign-in with a session, a fresh request (`POST /auth/approve`)",
    "POST /auth/approve (session, a fresh request)",
    STORAGE_BUDGET.sessionApproval,
  ),
  endpointRow(
    "The same request approved again (a double click)",
    "POST /auth/approve (session, the same request again)",
    STORAGE_BUDGET.doubleClick,
  ),
  {
    what: "Sign-in with the password (scrypt, slow on purpose)",
    measured: (f) => `p50 ${fixed(f.password.approve.p50)} ms`,
    budget: "— (deliberate)",
  },
  {
    what: "Owner console API, 10 grants stored",
    measured: (f) => consoleAt(f, 0),
    budget: `≤ ${OWNER_BUDGET.operations} operations`,
  },
  {
    what: "Owner console API, 1,000 grants stored",
    measured: (f) => consoleAt(f, 1),
    budget: `≤ ${OWNER_BUDGET.operations} operations`,
  },
  {
    what: "Owner console API, 10,000 grants stored",
    measured: (f) =>
      `${consoleAt(f, 2)}; ${f.owner.ratio.toFixed(2)}× the 10-grant p50${missed(f.owner.ratio > OWNER_BUDGET.ratio)}`,
    budget: `≤ ${OWNER_BUDGET.ratio}× the 10-grant p50; ≤ ${OWNER_BUDGET.operations} operations`,
  },
  {
    what: "Revoke all, 10,000 grants (one call)",
    measured: (f) => {
      const r = f.owner.revokeAll;
      return `${fixed(r.ms)} ms; ${r.operations} storage operations; sampled tokens inactive after: ${r.tokensInactive ? "all" : "NOT ALL"}${missed(r.operations > OWNER_BUDGET.operations || !r.tokensInactive)}`;
    },
    budget: `≤ ${OWNER_BUDGET.operations} operations; every token inactive`,
  },
  {
    what: "Introspection, 10,000 grants stored vs 10",
    measured: (f) => `p50 ratio ${f.scale.ratio.toFixed(2)}${missed(f.scale.ratio > BUDGET.scaleRatio)}`,
    budget: `≤ ${BUDGET.scaleRatio}`,
  },
  {
    what: "Cold import of the slowest deployed function",
    measured: (f) => {
      const worst = [...f.coldStart.functions].sort((a, b) => b.ownCpuMs - a.ownCpuMs)[0]!;
      return `\`${worst.fn}\` ${fixed(worst.importCpuMs)} ms CPU = the floor + node:crypto (${fixed(f.coldStart.floorCrypto.importCpuMs)} ms) + ${fixed(worst.ownCpuMs)} ms; wall ${fixed(worst.importMs)} ms${missed(worst.ownCpuMs > BUDGET.coldImportOwnCpuMs)}`;
    },
    budget: `≤ the floor + node:crypto + ${BUDGET.coldImportOwnCpuMs} ms of CPU`,
  },
  {
    what: "The sign-in page (HTML, CSS, JS, icon)",
    measured: (f) => {
      const page = f.signInPage;
      const largest = [...page.resources]
        .filter((r) => r.sameOrigin)
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 3);
      const why = `the largest files: ${largest.map((r) => `\`${r.url.replace(/^https?:\/\/[^/]+/, "")}\` ${kb(r.bytes)} KB`).join(", ")}`;
      return `${kb(page.totalBytes)} KB${missed(page.totalBytes > BUDGET.signInPageBytes, why)}`;
    },
    budget: `≤ ${kb(BUDGET.signInPageBytes)} KB uncompressed`,
  },
];

const table = (header: string, rows: readonly string[]) =>
  [header, header.replace(/[^|]+/g, "---"), ...rows].join("\n");

/** The main table: every budget of the bench, one row each. */
export function docTable(f: BenchFigures): string {
  const rows = DOC_ROWS.map((row) => `| ${row.what} | ${row.measured(f)} | ${row.budget} |`);
  return [written(f.generatedAt, f.machine), "", table("| what | measured | budget |", rows), ""].join("\n");
}

/** Each deployed function's cold import and what it ships. */
export function coldStartTable(f: BenchFigures): string {
  const c = f.coldStart;
  const row = (
    name: string,
    x: { shippedBytes: number; importCpuMs: number; importMs: number },
    over: string,
    demand: string,
  ) =>
    `| ${name} | ${kb(x.shippedBytes)}${missed(x.shippedBytes > BUDGET.shippedBytes)} | ${fixed(x.importCpuMs)} | ${over} | ${fixed(x.importMs)} | ${demand} |`;
  const rows = [
    ...c.functions.map((fn) =>
      row(
        `\`${fn.fn}\``,
        fn,
        `+${fixed(fn.ownCpuMs)}${missed(fn.ownCpuMs > BUDGET.coldImportOwnCpuMs)}`,
        fn.onDemandPackages
          .filter((p) => WATCHED_PACKAGES.includes(p))
          .map((p) => `\`${p}\``)
          .join(", ") || "—",
      ),
    ),
    row("the floor + `node:crypto` (the reference)", c.floorCrypto, "0", ""),
    row("the floor (`@netlify/blobs` alone)", c.floor, "", ""),
  ];
  return [
    written(f.generatedAt, f.machine),
    "",
    table(
      `| function | shipped KB (≤ ${kb(BUDGET.shippedBytes)}) | import CPU ms | CPU over the reference (≤ ${BUDGET.coldImportOwnCpuMs}) | import wall ms | heavy packages it loads on demand (never at cold start) |`,
      rows,
    ),
    "",
    `Every zip also carries Netlify's bootstrap, ${kb(c.floor.bootstrapBytes)} KB uncompressed, the same in each: not counted.`,
    "",
  ].join("\n");
}

/** What a user feels under the injected storage latency. */
export function userFeltTable(f: BenchFigures): string {
  const u = f.userFelt;
  const steps = u.steps.map(
    (s) =>
      `| ${s.flow}: ${s.step} | ${fixed(s.p50Ms)} | ${s.roundTrips}${missed(!s.pass)} | ${s.minimumRoundTrips} | ${fixed(s.floorMs)} |`,
  );
  const flows = u.flows.map(
    (w) =>
      `| **the whole ${w.flow}** | ${fixed(w.p50Ms)} | ${w.roundTrips} | ${w.minimumRoundTrips} | ${fixed(w.floorMs)} |`,
  );
  const header = `| ${u.latencyMs} ms per storage operation, median of ${u.runs} | wall ms | round trips in sequence | the design's minimum | minimum × ${u.latencyMs} ms |`;
  return [written(f.generatedAt, f.machine), "", table(header, [...steps, ...flows]), ""].join("\n");
}

/** The bursts (written by any run of that section, with that run's date and machine). */
export function burstTable(f: BenchFigures): string {
  const b = f.burst;
  if (!b) return "(no run of the bursts yet)";
  const rows = BURST_CASES.map((name) => {
    const c = b.cases.find((x) => x.name === name);
    if (!c) return `| ${name} | not sent | | | | |`;
    const statuses = Object.entries(c.statuses)
      .map(([status, n]) => `${n} × ${status}`)
      .join(", ");
    // Answered as expected per second of the whole burst: the rate this machine sustains without a refusal.
    const perSecond = c.ok / (c.wallMs / 1000);
    return `| ${c.name} | ${c.ok} of ${c.sent} | ${statuses} | ${(c.wallMs / 1000).toFixed(0)} s | ${(c.answered.p50 / 1000).toFixed(1)} s | ${perSecond.toFixed(1)} |`;
  });
  return [
    written(b.generatedAt, b.machine),
    "",
    table(
      "| sent at once | answered as expected | answers by status | all answered after | median answer | answered as expected per second |",
      rows,
    ),
    "",
  ].join("\n");
}

// The performance figures in docs/performance.md are written by the bench, between two markers,
// never by hand: each run replaces the table with its own numbers. The rows are declared here,
// once (test/unit/bench-doc.test.ts checks that the doc's table has exactly these rows).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BUDGET, OWNER_BUDGET, ROOT } from "./settings.ts";
import type { BurstResult } from "./burst.ts";

export const DOC = join(ROOT, "docs", "performance.md");
export const START_MARKER = "<!-- bench:start -->";
export const END_MARKER = "<!-- bench:end -->";

interface Timed {
  stats: { p50: number };
}
interface Endpoint extends Timed {
  name: string;
  ops: { typical: Record<string, number>; max: Record<string, number> };
  /** The storage floor it is judged against, and whether it was within floor + 1 ms. */
  floorMs?: number;
  pass?: boolean;
}
/** What the rows are read from: the bench's results (the same document as bench.json). */
export interface BenchFigures {
  endpoints: readonly Endpoint[];
  password: { approve: { p50: number } };
  scale: { ratio: number; small: Timed & { grants: number }; large: Timed & { grants: number } };
  coldStart: { floorCrypto: { importCpuMs: number }; functions: readonly { fn: string; importMs: number; importCpuMs: number; ownCpuMs: number }[] };
  owner: { console: readonly (Timed & { grants: number; operations: number })[]; ratio: number; revokeAll: { ms: number; operations: number; tokensInactive: boolean } };
}

const fixed = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const opsText = (ops: Record<string, number>) => `${ops.reads ?? 0} r, ${ops.writes ?? 0} w, ${ops.deletes ?? 0} d, ${ops.lists ?? 0} l`;

function endpointOf(figures: BenchFigures, name: string): Endpoint {
  const e = figures.endpoints.find((c) => c.name === name);
  if (!e) throw new Error(`the bench has no case "${name}" for the performance doc`);
  return e;
}

function endpoint(figures: BenchFigures, name: string): string {
  const e = endpointOf(figures, name);
  const floor = e.floorMs === undefined ? "" : ` (its storage ${fixed(e.floorMs)} ms)`;
  return `p50 ${fixed(e.stats.p50)} ms${floor}; ${opsText(e.ops.max)}`;
}

/** An endpoint row over its storage + 1 ms. */
const endpointMissed = (name: string) => (f: BenchFigures) => endpointOf(f, name).pass === false;

function consoleAt(figures: BenchFigures, index: number): string {
  const c = figures.owner.console[index]!;
  return `p50 ${fixed(c.stats.p50)} ms; ${c.operations} storage operations`;
}

/** Each row: what, measured (from the figures), budget; `missed` marks a miss in the table. */
export const DOC_ROWS: readonly { what: string; measured: (f: BenchFigures) => string; budget: string; missed?: (f: BenchFigures) => boolean }[] = [
  { what: "Token check (`POST /introspect`)", measured: (f) => endpoint(f, "POST /introspect"), budget: "storage + 1 ms; the grant and the revocations, in parallel", missed: endpointMissed("POST /introspect") },
  { what: "Legacy verification (`GET /token`)", measured: (f) => endpoint(f, "GET /token (legacy verification)"), budget: "storage + 1 ms", missed: endpointMissed("GET /token (legacy verification)") },
  { what: "`GET /userinfo`", measured: (f) => endpoint(f, "GET /userinfo"), budget: "storage + 1 ms", missed: endpointMissed("GET /userinfo") },
  { what: "Code redemption (`POST /token`)", measured: (f) => endpoint(f, "POST /token (code -> tokens)"), budget: "storage + 1 ms; ≤ 4 operations", missed: endpointMissed("POST /token (code -> tokens)") },
  { what: "Profile redemption (`POST /auth`)", measured: (f) => endpoint(f, "POST /auth (code -> profile)"), budget: "storage + 1 ms", missed: endpointMissed("POST /auth (code -> profile)") },
  { what: "Refresh (`POST /token`)", measured: (f) => endpoint(f, "POST /token (refresh)"), budget: "storage + 1 ms", missed: endpointMissed("POST /token (refresh)") },
  { what: "Revocation (`POST /revoke`)", measured: (f) => endpoint(f, "POST /revoke (live token)"), budget: "storage + 1 ms", missed: endpointMissed("POST /revoke (live token)") },
  { what: "Sign-in with a session, a fresh request (`POST /auth/approve`)", measured: (f) => endpoint(f, "POST /auth/approve (session, a fresh request)"), budget: "storage + 1 ms", missed: endpointMissed("POST /auth/approve (session, a fresh request)") },
  { what: "The same request approved again (a double click)", measured: (f) => endpoint(f, "POST /auth/approve (session, the same request again)"), budget: "storage + 1 ms", missed: endpointMissed("POST /auth/approve (session, the same request again)") },
  { what: "Sign-in with the password (scrypt, slow on purpose)", measured: (f) => `p50 ${fixed(f.password.approve.p50)} ms`, budget: "—" },
  { what: "Owner console API, 10 grants stored", measured: (f) => consoleAt(f, 0), budget: "≤ 50 operations" },
  { what: "Owner console API, 1,000 grants stored", measured: (f) => consoleAt(f, 1), budget: "≤ 50 operations" },
  { what: "Owner console API, 10,000 grants stored", measured: (f) => `${consoleAt(f, 2)}; ${f.owner.ratio.toFixed(2)}× the 10-grant p50`, budget: "≤ 2× the 10-grant p50; ≤ 50 operations", missed: (f) => f.owner.ratio > OWNER_BUDGET.ratio || f.owner.console.some((c) => c.operations > OWNER_BUDGET.operations) },
  {
    what: "Revoke all, 10,000 grants (one call)",
    measured: (f) => `${fixed(f.owner.revokeAll.ms)} ms; ${f.owner.revokeAll.operations} storage operations; sampled tokens inactive after: ${f.owner.revokeAll.tokensInactive ? "all" : "NOT ALL"}`,
    budget: "≤ 50 operations; every token inactive",
    missed: (f) => f.owner.revokeAll.operations > OWNER_BUDGET.operations || !f.owner.revokeAll.tokensInactive,
  },
  { what: "Introspection, 10,000 grants stored vs 10", measured: (f) => `p50 ratio ${f.scale.ratio.toFixed(2)}`, budget: "≤ 1.2", missed: (f) => f.scale.ratio > BUDGET.scaleRatio },
  {
    what: "Cold import of the slowest deployed function",
    measured: (f) => {
      const worst = [...f.coldStart.functions].sort((a, b) => b.ownCpuMs - a.ownCpuMs)[0]!;
      return `\`${worst.fn}\` ${fixed(worst.importCpuMs)} ms CPU = the floor + node:crypto (${fixed(f.coldStart.floorCrypto.importCpuMs)} ms CPU) + ${fixed(worst.ownCpuMs)} ms; wall ${fixed(worst.importMs)} ms`;
    },
    budget: `≤ floor + node:crypto + ${BUDGET.coldImportOwnCpuMs} ms CPU`,
    missed: (f) => f.coldStart.functions.some((c) => c.ownCpuMs > BUDGET.coldImportOwnCpuMs),
  },
];

/** The generated table, markers included. */
export function docTable(figures: BenchFigures, generatedAt: string, machine: string): string {
  const rows = DOC_ROWS.map((row) => `| ${row.what} | ${row.measured(figures)}${row.missed?.(figures) ? " **(over budget)**" : ""} | ${row.budget} |`);
  return [START_MARKER, `<!-- written by \`npm run bench\` (${generatedAt}, ${machine}); do not edit by hand -->`, "", "| what | measured | budget |", "|---|---|---|", ...rows, "", END_MARKER].join("\n");
}

/** Replaces what is between two markers in docs/performance.md (the markers included). */
async function writeBetween(startMarker: string, endMarker: string, block: string): Promise<void> {
  const text = await readFile(DOC, "utf8");
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  if (start < 0 || end < start) throw new Error(`${DOC} has no ${startMarker} ... ${endMarker} markers`);
  await writeFile(DOC, text.slice(0, start) + block + text.slice(end + endMarker.length));
}

/** Replaces the table between the markers in docs/performance.md. */
export function writeDocTable(figures: BenchFigures, generatedAt: string, machine: string): Promise<void> {
  return writeBetween(START_MARKER, END_MARKER, docTable(figures, generatedAt, machine));
}

/** The bursts' own table (section 9, scripts/bench/burst.ts): written by every run of that
 * section, `--only burst` too, as it needs no other section's figures. */
export const BURST_START_MARKER = "<!-- bench:burst:start -->";
export const BURST_END_MARKER = "<!-- bench:burst:end -->";

export function burstTable(result: BurstResult, generatedAt: string, machine: string): string {
  const rows = result.cases.map((c) => {
    const statuses = Object.entries(c.statuses).map(([status, n]) => `${n} × ${status}`).join(", ");
    return `| ${c.name} | ${c.ok} of ${c.sent} | ${statuses} | ${(c.wallMs / 1000).toFixed(0)} s | ${(c.answered.p50 / 1000).toFixed(1)} s |`;
  });
  const header = "| sent at once | answered as expected | answers by status | all answered after | median answer |";
  return [BURST_START_MARKER, `<!-- written by \`npm run bench\` (${generatedAt}, ${machine}); do not edit by hand -->`, "", header, "|---|---|---|---|---|", ...rows, "", BURST_END_MARKER].join("\n");
}

export function writeBurstTable(result: BurstResult, generatedAt: string, machine: string): Promise<void> {
  return writeBetween(BURST_START_MARKER, BURST_END_MARKER, burstTable(result, generatedAt, machine));
}

/** The first cells of the rows of the table between two markers of a document. */
export function tableRowsOf(text: string, startMarker = START_MARKER, endMarker = END_MARKER): string[] {
  const start = text.indexOf(startMarker);
  const end = text.indexOf(endMarker);
  if (start < 0 || end < start) return [];
  return text
    .slice(start, end)
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| what |") && !line.startsWith("| sent at once |"))
    .map((line) => line.split(" | ")[0]!.slice(2));
}

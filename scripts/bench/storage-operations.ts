// (2) Storage operations per request, counted by the store the bench wraps around the
// handlers' (test/helpers/counting-store.ts), and their budgets.
import { OPERATION_KINDS, type OperationCounts, type OperationKind } from "../../test/helpers/counting-store.ts";
import { check, printTable, say, verdict } from "./report.ts";
import { BUDGET } from "./settings.ts";
import { percentile } from "./stats.ts";

const totalOps = (ops: OperationCounts) => OPERATION_KINDS.reduce((sum, kind) => sum + ops[kind], 0);
const opsText = (ops: OperationCounts) => OPERATION_KINDS.map((kind) => ops[kind]).join("/");

export interface OpSummary {
  /** Per kind, the median call's count: what a request typically costs. */
  typical: OperationCounts;
  /** Per kind, the most any call did (a rate-limited write shows here). */
  max: OperationCounts;
}

export function summarizeOps(calls: readonly OperationCounts[]): OpSummary {
  const pick = (p: number): OperationCounts => {
    const at = (kind: OperationKind) => percentile(calls.map((c) => c[kind]).sort((a, b) => a - b), p);
    return { reads: at("reads"), writes: at("writes"), deletes: at("deletes"), lists: at("lists") };
  };
  return { typical: pick(50), max: pick(100) };
}

export function opSummaryText(ops: OpSummary): string {
  const typical = opsText(ops.typical);
  const max = opsText(ops.max);
  return typical === max ? typical : `${typical} (max ${max})`;
}

export interface OpsBudget {
  describe: string;
  allows: (max: OperationCounts) => boolean;
}

export const NO_STORAGE: OpsBudget = { describe: "0", allows: (max) => totalOps(max) === 0 };
export const ONE_READ: OpsBudget = {
  describe: `<=${BUDGET.verificationReads} read, <=${BUDGET.verificationWrites} write`,
  allows: (max) => max.reads <= BUDGET.verificationReads && max.writes <= BUDGET.verificationWrites && max.deletes === 0 && max.lists === 0,
};
export const REDEMPTION: OpsBudget = { describe: `<=${BUDGET.redemptionOps} in all`, allows: (max) => totalOps(max) <= BUDGET.redemptionOps };

export function judgeOperations(name: string, ops: OpSummary, budget: OpsBudget): boolean {
  return check("2 storage", name, opSummaryText(ops), budget.describe, budget.allows(ops.max));
}

interface Counted {
  name: string;
  ops: OpSummary;
  opsBudget?: string;
  opsPass?: boolean;
}

export function printStorage(endpoints: readonly Counted[], password: { approveOps: OpSummary }): void {
  printTable(
    "(2) Storage operations per request, counted by a store wrapped around the handlers' (r/w/d/l = reads/writes/deletes/lists)",
    ["", "ops r/w/d/l", "max total", "budget", ""],
    [
      ...endpoints.map((e) => [e.name, opSummaryText(e.ops), String(totalOps(e.ops.max)), e.opsBudget ?? "-", verdict(e.opsPass)]),
      ["POST /auth/approve (password)", opSummaryText(password.approveOps), String(totalOps(password.approveOps.max)), "-", "-"],
      ["static pages (sign-in, home, account)", "0/0/0/0", "0", "0", "PASS"],
    ],
  );
  check("2 storage", "static pages", "0 (files on the CDN, no function runs)", "0", true);
  say("static pages are files served without a function, so they cost no storage by construction.");
}

// (2) Storage operations per request, counted by the store the bench wraps around the
// handlers' (test/helpers/counting-store.ts): the round trips in sequence (critical-path.ts)
// and the operations in all, against the least the design needs (settings.ts STORAGE_BUDGET).
import { OPERATION_KINDS, type OperationCounts, type OperationKind } from "../../test/helpers/counting-store.ts";
import { check, printTable, say, verdict } from "./report.ts";
import type { StorageBudget } from "./settings.ts";
import { percentile } from "./stats.ts";

export const totalOps = (ops: OperationCounts) => OPERATION_KINDS.reduce((sum, kind) => sum + ops[kind], 0);
const opsText = (ops: OperationCounts) => OPERATION_KINDS.map((kind) => ops[kind]).join("/");

export interface OpSummary {
  /** Per kind, the median call's count: what a request typically costs. */
  typical: OperationCounts;
  /** Per kind, the most any call did (a rate-limited write shows here). */
  max: OperationCounts;
  /** Round trips one after another: the median call's, and the most of any call. */
  roundTrips: { typical: number; max: number };
}

export function summarizeOps(calls: readonly OperationCounts[], roundTrips: readonly number[]): OpSummary {
  const at = (values: number[], p: number) =>
    percentile(
      values.sort((a, b) => a - b),
      p,
    );
  const pick = (p: number): OperationCounts => {
    const of = (kind: OperationKind) =>
      at(
        calls.map((c) => c[kind]),
        p,
      );
    return { reads: of("reads"), writes: of("writes"), deletes: of("deletes"), lists: of("lists") };
  };
  return {
    typical: pick(50),
    max: pick(100),
    roundTrips: { typical: at([...roundTrips], 50), max: at([...roundTrips], 100) },
  };
}

export function opSummaryText(ops: OpSummary): string {
  const typical = opsText(ops.typical);
  const max = opsText(ops.max);
  return typical === max ? typical : `${typical} (max ${max})`;
}

export const roundTripsText = (ops: OpSummary) =>
  ops.roundTrips.typical === ops.roundTrips.max
    ? String(ops.roundTrips.typical)
    : `${ops.roundTrips.typical} (max ${ops.roundTrips.max})`;

export const storageBudgetText = (budget: StorageBudget) =>
  `<= ${budget.roundTrips} round trip${budget.roundTrips === 1 ? "" : "s"} in sequence, <= ${budget.operations} operations: ${budget.why}`;

/** Judged at the median call: round trips in sequence and operations in all. A miss says what
 * makes the code do more, where the budget names it. */
export function judgeStorage(section: string, name: string, ops: OpSummary, budget: StorageBudget): boolean {
  const total = totalOps(ops.typical);
  const pass = ops.roundTrips.typical <= budget.roundTrips && total <= budget.operations;
  const above = !pass && "above" in budget && budget.above ? `; above the minimum because ${budget.above}` : "";
  return check(
    section,
    name,
    `${ops.roundTrips.typical} round trips in sequence, ${total} operations (${opSummaryText(ops)})${above}`,
    storageBudgetText(budget),
    pass,
  );
}

interface Counted {
  name: string;
  ops: OpSummary;
  storageBudget?: StorageBudget;
  storagePass?: boolean;
}

export function printStorage(endpoints: readonly Counted[], password: { approveOps: OpSummary }): void {
  const row = (e: Counted) => [
    e.name,
    roundTripsText(e.ops),
    opSummaryText(e.ops),
    String(totalOps(e.ops.typical)),
    String(totalOps(e.ops.max)),
  ];
  printTable(
    "(2) Storage per request, counted by a store wrapped around the handlers' (round trips: the longest chain of operations one after another; r/w/d/l = reads/writes/deletes/lists; budgets at the median call)",
    ["", "round trips", "ops r/w/d/l", "ops", "max ops", "budget rt/ops", ""],
    [
      ...endpoints.map((e) => [
        ...row(e),
        e.storageBudget ? `${e.storageBudget.roundTrips}/${e.storageBudget.operations}` : "-",
        verdict(e.storagePass),
      ]),
      [...row({ name: "POST /auth/approve (password)", ops: password.approveOps }), "-", "-"],
    ],
  );
  for (const e of endpoints)
    if (e.storageBudget)
      say(
        `${e.name}: ${e.storageBudget.why}${e.storagePass === false && "above" in e.storageBudget ? `; MISS because ${e.storageBudget.above}` : ""}`,
      );
  say(
    "static pages (sign-in, home, account) are files served without a function: no storage by construction, not counted.",
  );
}

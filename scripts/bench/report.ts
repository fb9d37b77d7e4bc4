// Budget checks (every section adds its own; the misses decide the exit code) and the tables.
import { jsonOnly } from "./settings.ts";

export interface Check {
  section: string;
  subject: string;
  measured: string;
  budget: string;
  pass: boolean;
}

export const checks: Check[] = [];

export function check(section: string, subject: string, measured: string, budget: string, pass: boolean): boolean {
  checks.push({ section, subject, measured, budget, pass });
  return pass;
}

export const verdict = (pass: boolean | undefined) => (pass === undefined ? "-" : pass ? "PASS" : "MISS");

/** A line of the human report (silent with --json-only). */
export function say(line = ""): void {
  if (!jsonOnly) console.log(line);
}

export function printTable(title: string, headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((header, col) => Math.max(header.length, ...rows.map((row) => (row[col] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, col) => (col === 0 ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
      .join("  ")
      .trimEnd();
  say();
  say(title);
  say(line(headers));
  say(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) say(line(row));
}

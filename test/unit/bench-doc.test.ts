// The performance figures in docs/performance.md are the bench's own: written by `npm run bench`
// between two markers (scripts/bench/doc-table.ts). The doc must keep the markers, and its
// table must have exactly the rows the bench writes, so that no figure is ever typed by hand.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { BURST_END_MARKER, BURST_START_MARKER, DOC, DOC_ROWS, END_MARKER, START_MARKER, tableRowsOf } from "../../scripts/bench/doc-table.ts";
import { BURST_CASES } from "../../scripts/bench/burst.ts";
import { onlySections } from "../../scripts/bench/settings.ts";

describe("docs/performance.md's figures", () => {
  it("sit between the bench's markers, in a table whose rows are the bench's cases", async () => {
    const text = await readFile(DOC, "utf8");
    expect(text.split(START_MARKER)).toHaveLength(2);
    expect(text.split(END_MARKER)).toHaveLength(2);
    expect(text.indexOf(START_MARKER)).toBeLessThan(text.indexOf(END_MARKER));
    expect(tableRowsOf(text)).toEqual(DOC_ROWS.map((row) => row.what));
  });

  it("and the bursts' figures sit between markers of their own, one row per burst the bench sends", async () => {
    const text = await readFile(DOC, "utf8");
    expect(text.split(BURST_START_MARKER)).toHaveLength(2);
    expect(text.split(BURST_END_MARKER)).toHaveLength(2);
    expect(text.indexOf(BURST_START_MARKER)).toBeLessThan(text.indexOf(BURST_END_MARKER));
    expect(tableRowsOf(text, BURST_START_MARKER, BURST_END_MARKER)).toEqual([...BURST_CASES]);
  });

  it("name each row once", () => {
    expect(new Set(DOC_ROWS.map((row) => row.what)).size).toBe(DOC_ROWS.length);
  });
});

describe("npm run bench -- --only", () => {
  it("names the sections to run alone, and refuses a name it does not know", () => {
    expect(onlySections(["node", "main.ts"])).toBeNull();
    expect(onlySections(["node", "main.ts", "--only", "cold-start"])).toEqual(["cold-start"]);
    expect(onlySections(["node", "main.ts", "--only", "owner,cold-start"])).toEqual(["owner", "cold-start"]);
    expect(onlySections(["node", "main.ts", "--only", "burst"])).toEqual(["burst"]);
    expect(() => onlySections(["node", "main.ts", "--only", "cold"])).toThrow(/--only takes/);
    expect(() => onlySections(["node", "main.ts", "--only"])).toThrow(/--only takes/);
  });
});

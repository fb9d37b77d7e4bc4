// The performance figures in docs/performance.md are the bench's own: written by `npm run bench`
// between markers (scripts/bench/doc-blocks.ts), from the run's JSON document, which the same
// run writes beside the doc as docs/bench.json. Every block, rendered again from that JSON,
// must be exactly what the doc holds: no figure, row or budget typed by hand.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { BLOCKS, blockIn, DOC, DOC_JSON, renderedBlock, type BlockName } from "../../scripts/bench/doc-blocks.ts";
import { DOC_ROWS, type BenchFigures } from "../../scripts/bench/doc-table.ts";
import { onlySections } from "../../scripts/bench/settings.ts";

const names = Object.keys(BLOCKS) as BlockName[];

describe("docs/performance.md's figures", () => {
  it.each(names)("the %s block sits between its markers, once", async (name) => {
    const text = await readFile(DOC, "utf8");
    const { start, end } = BLOCKS[name];
    expect(text.split(start)).toHaveLength(2);
    expect(text.split(end)).toHaveLength(2);
    expect(text.indexOf(start)).toBeLessThan(text.indexOf(end));
  });

  it.each(names)("the %s block is, figure for figure, what docs/bench.json renders", async (name) => {
    const [text, json] = await Promise.all([readFile(DOC, "utf8"), readFile(DOC_JSON, "utf8")]);
    const figures = JSON.parse(json) as BenchFigures;
    expect(blockIn(text, name)).toBe(renderedBlock(name, figures));
  });

  it("docs/bench.json is a full run's (every section), with its misses listed", async () => {
    const figures = JSON.parse(await readFile(DOC_JSON, "utf8")) as BenchFigures & {
      checks: { pass: boolean }[];
      misses: unknown[];
    };
    for (const section of ["endpoints", "coldStart", "scale", "owner", "signInPage", "userFelt"] as const)
      expect(figures[section]).toBeDefined();
    expect(figures.misses).toEqual(figures.checks.filter((c) => !c.pass));
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
    expect(onlySections(["node", "main.ts", "--only", "user-felt"])).toEqual(["user-felt"]);
    expect(() => onlySections(["node", "main.ts", "--only", "cold"])).toThrow(/--only takes/);
    expect(() => onlySections(["node", "main.ts", "--only"])).toThrow(/--only takes/);
  });
});

// The figures in docs/performance.md are written by the bench, between markers, never by hand:
// each block is rendered from the run's JSON document, which the same run commits beside the
// doc as docs/bench.json (test/output/ is not committed). test/unit/bench-doc.test.ts renders
// every block again from docs/bench.json and compares it with the doc, figure for figure.
// A full run writes every block; a run of `--only burst` writes the bursts' (they need no other
// section), merging its figures into docs/bench.json; other partial runs write nothing here.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { burstTable, coldStartTable, docTable, userFeltTable, type BenchFigures } from "./doc-table.ts";
import { ROOT } from "./settings.ts";

export const DOC = join(ROOT, "docs", "performance.md");
/** The last full run's JSON document (bench.json), committed with the doc it wrote. */
export const DOC_JSON = join(ROOT, "docs", "bench.json");

interface Block {
  name: string;
  start: string;
  end: string;
  render: (figures: BenchFigures) => string;
}

const block = (name: string, tag: string, render: (f: BenchFigures) => string): Block => ({
  name,
  start: `<!-- bench${tag}:start -->`,
  end: `<!-- bench${tag}:end -->`,
  render,
});

export const BLOCKS = {
  main: block("main", "", docTable),
  coldStart: block("coldStart", ":cold-start", coldStartTable),
  userFelt: block("userFelt", ":user-felt", userFeltTable),
  burst: block("burst", ":burst", burstTable),
} as const;
export type BlockName = keyof typeof BLOCKS;

/** A block as it stands in the doc, markers included (null: no such markers). */
export function blockIn(text: string, name: BlockName): string | null {
  const { start, end } = BLOCKS[name];
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) return null;
  return text.slice(from, to + end.length);
}

/** A block as the figures render it, markers included. */
export const renderedBlock = (name: BlockName, figures: BenchFigures): string => {
  const { start, end, render } = BLOCKS[name];
  return [start, render(figures), end].join("\n");
};

/** Writes `names`' blocks of the doc from `figures`, and the figures beside it. */
export async function writeDocBlocks(figures: BenchFigures, names: readonly BlockName[]): Promise<void> {
  let text = await readFile(DOC, "utf8");
  for (const name of names) {
    const current = blockIn(text, name);
    if (current === null) throw new Error(`${DOC} has no ${BLOCKS[name].start} ... ${BLOCKS[name].end} markers`);
    text = text.replace(current, () => renderedBlock(name, figures));
  }
  await writeFile(DOC, text);
  await writeFile(DOC_JSON, `${JSON.stringify(figures, null, 2)}\n`);
}

/** The last full run's figures, for a partial run to merge its own into. */
export async function docFigures(): Promise<BenchFigures> {
  return JSON.parse(await readFile(DOC_JSON, "utf8")) as BenchFigures;
}

// The README and docs/ link to each other and to files of the repository: every relative link
// must name a file that exists and, with a #fragment, a heading of that file (GitHub's anchors).
// Also: the README stays short enough to read in minutes.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const documents = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks (links in code are examples, not links). */
function prose(markdown: string): string {
  return markdown.replace(/^ *```[\s\S]*?^ *```$/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = text!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map(([, target]) => target!);
}

describe("README and docs", () => {
  it("the README fits on a page: at most 300 lines", () => {
    const lines = readFileSync(join(repo, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThanOrEqual(300);
  });

  it.each(documents)("every relative link in %s names a file and heading that exist", (document) => {
    const text = readFileSync(join(repo, document), "utf8");
    const broken: string[] = [];
    for (const target of links(text)) {
      if (/^[a-z]+:/i.test(target)) continue; // https:, mailto: ...
      const [path, fragment] = target.split("#", 2) as [string, string | undefined];
      const file = path === "" ? join(repo, document) : resolve(dirname(join(repo, document)), path);
      if (!existsSync(file)) {
        broken.push(`${target}: no file ${relative(repo, file)}`);
        continue;
      }
      if (fragment !== undefined && file.endsWith(".md") && !anchors(readFileSync(file, "utf8")).has(fragment)) {
        broken.push(`${target}: no heading #${fragment} in ${relative(repo, file)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the docs cover every subject the README points to", () => {
    for (const subject of [
      "endpoints",
      "resource-api",
      "mcp",
      "security",
      "architecture",
      "performance",
      "data-model",
      "tests",
      "migration",
      "configuration",
      "account",
      "blog",
    ]) {
      expect(existsSync(join(repo, "docs", `${subject}.md`)), subject).toBe(true);
    }
  });
});

// The shell commands of README.md and docs/*.md, as a person would copy them: each ```sh block
// split into commands (a trailing backslash continues a line), each with the `# …` lines that
// follow it (what the docs say it prints) and the ```json block right after its block, if any.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const repo = new URL("../..", import.meta.url).pathname;

export interface DocCommand {
  /** README.md or docs/<name>.md */
  doc: string;
  /** The command as written, on one line (continuations joined, any trailing comment kept). */
  command: string;
  /** The `# …` lines after it, without the `# `. */
  printed: string[];
  /** The ```json block that follows the command's block, if any. */
  json?: string;
}

export function documents(): string[] {
  return [
    "README.md",
    ...readdirSync(join(repo, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
}

export function docCommands(doc: string): DocCommand[] {
  const text = readFileSync(join(repo, doc), "utf8");
  const commands: DocCommand[] = [];
  const blocks = /^( *)```sh\n([\s\S]*?)^ *```\n(?: *```json\n([\s\S]*?)^ *```$)?/gm;
  for (const [, indent, body, json] of text.matchAll(blocks)) {
    const lines = body!.split("\n").map((line) => (line.startsWith(indent!) ? line.slice(indent!.length) : line));
    const inBlock: DocCommand[] = [];
    let pending = "";
    for (const line of lines) {
      if (pending) {
        pending += " " + line.trim();
      } else if (line.startsWith("# ")) {
        inBlock.at(-1)?.printed.push(line.slice(2));
        continue;
      } else if (line.trim()) {
        pending = line.trim();
      } else {
        continue;
      }
      if (pending.endsWith("\\")) {
        pending = pending.slice(0, -1).trimEnd();
        continue;
      }
      inBlock.push({ doc, command: pending, printed: [] });
      pending = "";
    }
    if (json !== undefined) for (const command of inBlock) command.json = json;
    commands.push(...inBlock);
  }
  return commands;
}

/** Every shell command in README.md and docs/. */
export function allDocCommands(): DocCommand[] {
  return documents().flatMap(docCommands);
}

/** The keys of a JSON text as the docs print it (which may abbreviate values with "…"). */
export function jsonKeys(text: string): string[] {
  return [...text.matchAll(/"([\w-]+)"\s*:/g)].map(([, key]) => key!);
}

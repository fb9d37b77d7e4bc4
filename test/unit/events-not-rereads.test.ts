// What happened is told by the code that knew it (platform/events.ts), never reconstructed: no
// module of the server's own flow (endpoints, http, owner, protocol) clones or re-reads a
// Response, tests an error's words with a regular expression or `includes`, or keeps state of
// a request in a module-level map keyed by the Request (it lives on the request context).
// (clients/ parses the documents and answers it fetches: that is reading, not re-reading.)
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const FOLDERS = ["endpoints", "http", "owner", "protocol"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

const RULES: readonly { what: string; pattern: RegExp }[] = [
  { what: "clones a Response", pattern: /\.clone\(\)/ },
  // ctx.json() reads the request's own body, once (http/body.ts parses a multipart request's with
  // formData); anything else's .json() or .text() re-reads an answer.
  { what: "re-reads a Response's body", pattern: /(?<!\bctx)\.(json|text|arrayBuffer)\(\)/ },
  {
    what: "tests an error's words with a regular expression",
    pattern: /\/[a-z]*\.test\([^)]*\.(message|description|detail|error_description)\b/,
  },
  {
    what: "tests an error's words with includes or match",
    pattern: /\.(message|description|detail|error_description)\??\.(includes|match|startsWith|endsWith|search)\(/,
  },
  { what: "keeps a request's state in a module-level map", pattern: /new WeakMap<Request\b/ },
];

describe("events, not re-reads", () => {
  const files = FOLDERS.flatMap((folder) => sources(join(repo, "netlify/lib", folder)));

  it("finds the modules it checks", () => {
    expect(files.length).toBeGreaterThan(50);
  });

  for (const { what, pattern } of RULES) {
    it(`no module of endpoints, http, owner or protocol ${what}`, () => {
      const found = files.flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .map((line, i) => ({ line, at: `${relative(repo, file)}:${i + 1}` }))
          .filter(
            ({ line }) => !line.trimStart().startsWith("//") && !line.trimStart().startsWith("*") && pattern.test(line),
          )
          .map(({ at, line }) => `${at}: ${line.trim()}`),
      );
      expect(found).toEqual([]);
    });
  }
});

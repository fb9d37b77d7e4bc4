// What the README and docs tell a blog's owner to set up, held to what is true: every .gitignore
// they suggest keeps out .env (the SECRET and the password's hash); the Deploy button's repository
// is package.json's `repository`; the package is installed from the repository or a tarball kept
// in the blog, never by name from the npm registry (the name is not published there: anyone could
// publish under it), and the tarball's name is the one `npm pack` makes.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const repo = resolve(import.meta.dirname, "../..");
const documents = [
  "README.md",
  ...readdirSync(join(repo, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const text = (doc: string) => readFileSync(join(repo, doc), "utf8");
const manifest = JSON.parse(text("package.json")) as {
  name: string;
  version: string;
  repository?: string | { url?: string };
};

/** The repository's https address from package.json (`git+https://….git`, `github:owner/name`). */
function repositoryUrl(): string {
  const raw = typeof manifest.repository === "string" ? manifest.repository : (manifest.repository?.url ?? "");
  const shorthand = /^(?:github:)?([\w.-]+\/[\w.-]+)$/.exec(raw);
  return (shorthand ? `https://github.com/${shorthand[1]}` : raw).replace(/^git\+/, "").replace(/\.git$/, "");
}

/** The code blocks that follow a mention of .gitignore, or that list node_modules/ as ignore lines. */
function gitignoreBlocks(doc: string): string[] {
  return [...text(doc).matchAll(/([^\n]*\n[^\n]*\n)? *```[a-z]*\n([\s\S]*?)^ *```$/gm)]
    .filter(([, before, body]) => (before ?? "").includes(".gitignore") || /^ *node_modules\/?$/m.test(body!))
    .map(([, , body]) => body!);
}

describe("what the docs tell a blog's owner to set up", () => {
  it("every .gitignore they suggest keeps out .env", () => {
    const blocks = documents.flatMap((doc) => gitignoreBlocks(doc).map((body) => ({ doc, body })));
    expect(blocks.length).toBeGreaterThan(0);
    for (const { doc, body } of blocks) expect({ doc, env: /^ *\.env$/m.test(body) }).toEqual({ doc, env: true });
  });

  it("the Deploy button deploys package.json's repository", () => {
    expect(repositoryUrl()).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    const buttons = [...text("README.md").matchAll(/app\.netlify\.com\/start\/deploy\?repository=([^)\s]+)/g)].map(
      ([, url]) => url,
    );
    expect(buttons).toEqual([repositoryUrl()]);
  });

  it("installs the package from the repository or a tarball kept in the blog, never by name from the registry", () => {
    for (const doc of documents) {
      // (The README's own warning names that command, saying what it would do.)
      const byName = [
        ...text(doc).matchAll(/npm (?:install|i|add)\b[^\n`]*?\s(netlify-indieauth)(?=[\s`@]|$)(?!` would)/gm),
      ].map(([line]) => line);
      expect({ doc, byName }).toEqual({ doc, byName: [] });
      // No package.json shown with a tarball outside the blog (a Netlify build has no such folder).
      expect({ doc, fileAbove: /"file:\.\.\//.test(text(doc)) }).toEqual({ doc, fileAbove: false });
    }
    const readme = text("README.md");
    expect(readme).toContain("never by name from the npm registry");
    const tarballs = [...readme.matchAll(/\.\/vendor\/([\w.-]+\.tgz)/g)].map(([, name]) => name);
    expect(tarballs.length).toBeGreaterThan(0);
    for (const name of tarballs) expect(name).toBe(`${manifest.name}-${manifest.version}.tgz`);
  });
});

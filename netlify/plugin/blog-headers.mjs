// The blog's own header rules that would reach the server's pages, for the build plugin (kept
// apart from index.mjs, which may export only event handlers). A blog rule for "/*" (or any path
// pattern that matches a page under /indieauth/) that sets the pages' protections replaces them:
// measured with netlify-cli, a netlify.toml "/*" rule replaced the sign-in page's CSP and framing
// rule, and a _headers "/*" rule its Cross-Origin-Opener-Policy, whatever the order of the rules
// in the files. So the build stops, naming each such rule, rather than trust an order.
// Paths are matched with Netlify's own parser and matcher (@netlify/headers-parser, the one
// @netlify/config and netlify-cli use).
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parseAllHeaders } from "@netlify/headers-parser";
import { parse } from "smol-toml";
import { ourHeadersBlock, withoutOurHeaders } from "./headers.mjs";

/** The headers that carry the pages' protections: no script but their own, no framing, no
 * window handle for whoever opened them, never cached. */
export const GUARDED_HEADERS = [
  "Content-Security-Policy",
  "X-Frame-Options",
  "Cross-Origin-Opener-Policy",
  "Cache-Control",
];
/** A path under /indieauth/ with no file: where a stray page (the blog's 404 page) would land. */
export const MISSING_PAGE_PROBE = "/indieauth/no-such-page";

/** The rules of a _headers file's text, as Netlify reads them (with their matcher). */
export async function parseHeadersText(text) {
  if (text.trim() === "") return [];
  const dir = await mkdtemp(join(tmpdir(), "netlify-indieauth-headers-"));
  try {
    await writeFile(join(dir, "_headers"), text);
    return (await parseAllHeaders({ headersFiles: [join(dir, "_headers")], minimal: false })).headers;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Rules given as `{ for, values }` objects (netlify.toml's [[headers]], netlifyConfig.headers),
 * as Netlify reads them (with their matcher). */
export async function parseHeaderObjects(rules) {
  return (await parseAllHeaders({ configHeaders: rules ?? [], minimal: false })).headers;
}

/** One rule's identity: its path and values, header names in any case. */
function identity(rule) {
  const values = Object.entries(rule.values)
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([rule.for, values]);
}

/** Each rule of `sources` that sets a guarded header on one of `paths` (the URL paths the server
 * serves). `sources`: `{ label, rules }`, first the files then the resolved configuration; a rule
 * found in an earlier source, or among `ours` (our block's rules, this run's and the last's),
 * is not named again. Returns `{ label, for, headers, example }` for each. */
export function conflictingRules(sources, ours, paths) {
  const seen = new Set(ours.map(identity));
  const conflicts = [];
  for (const { label, rules } of sources) {
    for (const rule of rules) {
      const key = identity(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      const headers = Object.keys(rule.values).filter((name) =>
        GUARDED_HEADERS.some((guarded) => guarded.toLowerCase() === name.toLowerCase()),
      );
      const example = paths.find((path) => rule.forRegExp.test(path));
      if (headers.length > 0 && example !== undefined) conflicts.push({ label, for: rule.for, headers, example });
    }
  }
  return conflicts;
}

/** The URL paths that serve `files` (the plugin's, under the publish folder: "indieauth/sign-in/index.html"). */
export function servedPaths(files) {
  // The sign-in page first: the one a conflict is named by, when it is among them.
  const ordered = [...files].sort((a, b) => Number(b.includes("/sign-in/")) - Number(a.includes("/sign-in/")));
  return ordered.flatMap((file) =>
    file.endsWith("/index.html") ? [`/${file.slice(0, -"index.html".length)}`, `/${file}`] : [`/${file}`],
  );
}

async function readIfThere(file) {
  return existsSync(file) ? await readFile(file, "utf8") : "";
}

/** The blog's header rules that would reach the plugin's `files`, or a missing path beside them:
 * from the publish folder's _headers (outside our block), the site folder's _headers (which
 * netlify-cli reads too), the site's netlify.toml (`configPath`) and the resolved configuration
 * (`configHeaders`: netlifyConfig.headers, which other plugins may have added to). `ourRules`:
 * this run's block. */
export async function blogHeaderConflicts({ siteRoot, publishDir, shown, configPath, configHeaders, ourRules, files }) {
  const published = await readIfThere(join(publishDir, "_headers"));
  const sources = [{ label: `${shown}/_headers`, rules: await parseHeadersText(withoutOurHeaders(published)) }];
  if (resolve(siteRoot, "_headers") !== resolve(publishDir, "_headers")) {
    const text = withoutOurHeaders(await readIfThere(join(siteRoot, "_headers")));
    sources.push({
      label: "_headers in the site's folder (netlify dev and netlify serve read it)",
      rules: await parseHeadersText(text),
    });
  }
  if (configPath && existsSync(configPath)) {
    let rules = [];
    try {
      rules = parse(await readFile(configPath, "utf8")).headers ?? [];
    } catch {
      // Netlify read it already; what it resolved is checked below.
    }
    sources.push({
      label: `${relative(siteRoot, configPath) || configPath} [[headers]]`,
      rules: await parseHeaderObjects(rules),
    });
  }
  const resolved =
    "the site's resolved configuration (netlifyConfig.headers: another build plugin's, or a _headers read before the build command)";
  sources.push({ label: resolved, rules: await parseHeaderObjects(configHeaders) });
  const ours = [...(await parseHeadersText(ourHeadersBlock(published))), ...(await parseHeaderObjects(ourRules))];
  return conflictingRules(sources, ours, [...servedPaths(files), MISSING_PAGE_PROBE]);
}

/** The build's message for the conflicts found. */
export function conflictMessage(conflicts) {
  const lines = conflicts.map(
    (c) => `  - ${c.label}, the rule for "${c.for}": ${c.headers.join(", ")} (it matches ${c.example})`,
  );
  return [
    "netlify-indieauth: the blog's own header rules would replace the protections of the server's pages under /indieauth/",
    "(their Content-Security-Policy, framing rule, Cross-Origin-Opener-Policy or Cache-Control), whatever the order of the rules:",
    ...lines,
    'Narrow each rule to the blog\'s own paths (a rule cannot leave a path out: list the blog\'s, e.g. "/", "/posts/*", "/about/*", "/assets/*"), then build again.',
  ].join("\n");
}

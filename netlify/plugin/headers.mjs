// The pages' security headers as a _headers block, for the build plugin (kept apart from
// index.mjs, which may export only event handlers).
const PAGES_PREFIX = "/indieauth/";
export const HEADERS_BEGIN = "# BEGIN netlify-indieauth (written by its build plugin)";
export const HEADERS_END = "# END netlify-indieauth";

/** This package's [[headers]] for its own pages: the rules under /indieauth/, and the
 * every-page rule ("/*": nosniff, no-referrer) narrowed to /indieauth/*. The rules for "/"
 * belong to a standalone deployment; on a blog, "/" is the blog's home page. */
export function pageHeaderRules(toml) {
  const rules = [];
  for (const rule of toml.headers ?? []) {
    const path = String(rule.for);
    if (path === "/*") rules.push({ for: `${PAGES_PREFIX}*`, values: rule.values });
    else if (path.startsWith(PAGES_PREFIX)) rules.push({ for: path, values: rule.values });
  }
  return rules;
}

/** The _headers file with our block in it: appended after the blog's own rules, or put in
 * place of the block an earlier run wrote. */
export function withOurHeaders(existing, rules) {
  const block = [
    HEADERS_BEGIN,
    ...rules.flatMap((rule) => [rule.for, ...Object.entries(rule.values).map(([name, value]) => `  ${name}: ${value}`)]),
    HEADERS_END,
  ].join("\n");
  const start = existing.indexOf(HEADERS_BEGIN);
  const end = existing.indexOf(HEADERS_END);
  if (start !== -1 && end > start) return `${existing.slice(0, start)}${block}${existing.slice(end + HEADERS_END.length)}`;
  if (existing === "") return `${block}\n`;
  return `${existing}${existing.endsWith("\n") ? "" : "\n"}\n${block}\n`;
}


// The pages' security headers as a _headers block, for the build plugin (kept apart from
// index.mjs, which may export only event handlers).
const PAGES_PREFIX = "/indieauth/";
export const HEADERS_BEGIN = "# BEGIN netlify-indieauth (written by its build plugin)";
export const HEADERS_END = "# END netlify-indieauth";

/** For every path under /indieauth/: no script, no framing, no form. Only the server's own pages
 * (their rules come after this one in the block, and a later rule's header replaces an earlier
 * one's for the same path) allow their own scripts; whatever else ever lands under /indieauth/
 * (a stray file, a page served by a router's fallback) runs nothing on the server's origin. */
export const SCRIPT_FREE = {
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
};

/** This package's [[headers]] for its own pages: the rules under /indieauth/, and the
 * every-page rule ("/*": nosniff, no-referrer) narrowed to /indieauth/* with the script-free
 * defaults, first. The rules for "/" belong to a standalone deployment; on a blog, "/" is the
 * blog's home page. */
export function pageHeaderRules(toml) {
  const everyPath = { for: `${PAGES_PREFIX}*`, values: { ...SCRIPT_FREE } };
  const rules = [everyPath];
  for (const rule of toml.headers ?? []) {
    const path = String(rule.for);
    if (path === "/*") Object.assign(everyPath.values, rule.values);
    else if (path.startsWith(PAGES_PREFIX)) rules.push({ for: path, values: rule.values });
  }
  return rules;
}

/** The _headers file with our block in it: appended after the blog's own rules, or put in
 * place of the block an earlier run wrote. */
export function withOurHeaders(existing, rules) {
  const block = [
    HEADERS_BEGIN,
    ...rules.flatMap((rule) => [
      rule.for,
      ...Object.entries(rule.values).map(([name, value]) => `  ${name}: ${value}`),
    ]),
    HEADERS_END,
  ].join("\n");
  const start = existing.indexOf(HEADERS_BEGIN);
  const end = existing.indexOf(HEADERS_END);
  if (start !== -1 && end > start)
    return `${existing.slice(0, start)}${block}${existing.slice(end + HEADERS_END.length)}`;
  if (existing === "") return `${block}\n`;
  return `${existing}${existing.endsWith("\n") ? "" : "\n"}\n${block}\n`;
}

/** The blog's part of a _headers file: everything but our block. */
export function withoutOurHeaders(existing) {
  const start = existing.indexOf(HEADERS_BEGIN);
  const end = existing.indexOf(HEADERS_END);
  return start !== -1 && end > start
    ? `${existing.slice(0, start)}${existing.slice(end + HEADERS_END.length)}`
    : existing;
}

/** Our block's text in a _headers file (an earlier run's), or "". */
export function ourHeadersBlock(existing) {
  const start = existing.indexOf(HEADERS_BEGIN);
  const end = existing.indexOf(HEADERS_END);
  return start !== -1 && end > start ? existing.slice(start, end) : "";
}

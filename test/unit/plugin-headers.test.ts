// The build plugin's _headers block (netlify/plugin/headers.mjs): which of the package's
// [[headers]] a blog gets, and how the block sits next to the blog's own rules.
import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";

const headersModule = new URL("../../netlify/plugin/headers.mjs", import.meta.url).href;
const { HEADERS_BEGIN, HEADERS_END, pageHeaderRules, withOurHeaders } = (await import(headersModule)) as {
  HEADERS_BEGIN: string;
  HEADERS_END: string;
  pageHeaderRules: (toml: unknown) => { for: string; values: Record<string, string> }[];
  withOurHeaders: (existing: string, rules: { for: string; values: Record<string, string> }[]) => string;
};
const toml = parse(readFileSync(new URL("../../netlify.toml", import.meta.url), "utf8"));

describe("the plugin's headers for a blog", () => {
  it("takes the rules under /indieauth/ and narrows the every-page rule to /indieauth/*, leaving the blog's / alone", () => {
    const rules = pageHeaderRules(toml);
    const paths = rules.map((rule) => rule.for);
    expect(paths).toContain("/indieauth/*");
    expect(paths).toContain("/indieauth/sign-in/*");
    expect(paths).toContain("/indieauth/account/*");
    expect(paths.filter((path) => !path.startsWith("/indieauth/"))).toEqual([]);
    expect(rules.find((rule) => rule.for === "/indieauth/*")?.values).toEqual({
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      // A blog script that opens the sign-in page in a window gets no handle to it.
      "Cross-Origin-Opener-Policy": "same-origin",
      "Strict-Transport-Security": "max-age=31536000",
    });
    expect(rules.find((rule) => rule.for === "/indieauth/sign-in/*")?.values["Cache-Control"]).toBe("no-store");
  });

  it("appends its block after the blog's own rules, and replaces it (only it) when the build runs again", () => {
    const blogs = "/assets/*\n  Cache-Control: public, max-age=31536000";
    const once = withOurHeaders(blogs, [{ for: "/indieauth/*", values: { "X-Frame-Options": "DENY" } }]);
    expect(once).toBe(`${blogs}\n\n${HEADERS_BEGIN}\n/indieauth/*\n  X-Frame-Options: DENY\n${HEADERS_END}\n`);
    const again = withOurHeaders(once, [{ for: "/indieauth/*", values: { "X-Frame-Options": "SAMEORIGIN" } }]);
    expect(again).toBe(`${blogs}\n\n${HEADERS_BEGIN}\n/indieauth/*\n  X-Frame-Options: SAMEORIGIN\n${HEADERS_END}\n`);
    expect(withOurHeaders("", [])).toBe(`${HEADERS_BEGIN}\n${HEADERS_END}\n`);
  });
});

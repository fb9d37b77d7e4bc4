// The build plugin's _headers block (netlify/plugin/headers.mjs): which of the package's
// [[headers]] a blog gets, and how the block sits next to the blog's own rules.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";

const headersModule = new URL("../../netlify/plugin/headers.mjs", import.meta.url).href;
const { HEADERS_BEGIN, HEADERS_END, SCRIPT_FREE, pageHeaderRules, withOurHeaders } = (await import(headersModule)) as {
  HEADERS_BEGIN: string;
  HEADERS_END: string;
  SCRIPT_FREE: Record<string, string>;
  pageHeaderRules: (toml: unknown) => { for: string; values: Record<string, string> }[];
  withOurHeaders: (existing: string, rules: { for: string; values: Record<string, string> }[]) => string;
};
const toml = parse(readFileSync(new URL("../../netlify.toml", import.meta.url), "utf8"));

describe("the plugin's headers for a blog", () => {
  it("takes the rules under /indieauth/ and narrows the every-page rule to /indieauth/*, first and script-free, leaving the blog's / alone", () => {
    const rules = pageHeaderRules(toml);
    const paths = rules.map((rule) => rule.for);
    // First: a later rule's header replaces an earlier one's, so each page's own CSP wins over it.
    expect(paths[0]).toBe("/indieauth/*");
    expect(paths).toContain("/indieauth/sign-in/*");
    expect(paths).toContain("/indieauth/account/*");
    expect(paths.filter((path) => !path.startsWith("/indieauth/"))).toEqual([]);
    expect(rules.find((rule) => rule.for === "/indieauth/*")?.values).toEqual({
      // Whatever lands under /indieauth/ without a rule of its own runs no script, is not framed, posts no form.
      "Content-Security-Policy":
        "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "no-referrer",
      // A blog script that opens the sign-in page in a window gets no handle to it.
      "Cross-Origin-Opener-Policy": "same-origin",
      "Strict-Transport-Security": "max-age=31536000",
    });
    expect(rules.find((rule) => rule.for === "/indieauth/sign-in/*")?.values["Cache-Control"]).toBe("no-store");
    expect(SCRIPT_FREE["Content-Security-Policy"]).not.toContain("script-src");
    // Every page with a script of its own has a rule of its own, with its own CSP.
    for (const page of [
      "/indieauth/",
      "/indieauth/index.html",
      "/indieauth/sign-in/*",
      "/indieauth/account/*",
      "/indieauth/self-test/*",
    ]) {
      expect({ page, csp: rules.find((rule) => rule.for === page)?.values["Content-Security-Policy"] }).toEqual({
        page,
        csp: expect.stringContaining("script-src 'self'"),
      });
    }
  });

  it("appends its block after the blog's own rules, and replaces it (only it) when the build runs again", () => {
    const blogs = "/assets/*\n  Cache-Control: public, max-age=31536000";
    const once = withOurHeaders(blogs, [{ for: "/indieauth/*", values: { "X-Frame-Options": "DENY" } }]);
    expect(once).toBe(`${blogs}\n\n${HEADERS_BEGIN}\n/indieauth/*\n  X-Frame-Options: DENY\n${HEADERS_END}\n`);
    const again = withOurHeaders(once, [{ for: "/indieauth/*", values: { "X-Frame-Options": "SAMEORIGIN" } }]);
    expect(again).toBe(`${blogs}\n\n${HEADERS_BEGIN}\n/indieauth/*\n  X-Frame-Options: SAMEORIGIN\n${HEADERS_END}\n`);
    expect(withOurHeaders("", [])).toBe(`${HEADERS_BEGIN}\n${HEADERS_END}\n`);
  });

  it("under netlify-cli's own header matching, each page keeps its own CSP and every other path under /indieauth/ gets the script-free one", async () => {
    // netlify dev's and netlify serve's: every matching rule applies, a later one's header replacing an earlier one's.
    const cliHeaders = "netlify-cli/dist/utils/headers.js";
    const { parseHeaders, headersForPath } = (await import(cliHeaders)) as {
      parseHeaders: (options: { config: object; headersFiles: string[] }) => Promise<unknown[]>;
      headersForPath: (headers: unknown[], path: string) => Record<string, string>;
    };
    const dir = mkdtempSync(join(tmpdir(), "indieauth-headers-"));
    writeFileSync(join(dir, "_headers"), withOurHeaders("", pageHeaderRules(toml)));
    const headers = await parseHeaders({ config: {}, headersFiles: [join(dir, "_headers")] });
    const csp = (path: string) => headersForPath(headers, path)["Content-Security-Policy"];
    for (const page of [
      "/indieauth/",
      "/indieauth/index.html",
      "/indieauth/sign-in/",
      "/indieauth/sign-in/index.html",
      "/indieauth/account/",
      "/indieauth/self-test/",
    ]) {
      expect({ page, csp: csp(page) }).toEqual({ page, csp: expect.stringContaining("script-src 'self'") });
    }
    for (const path of [
      "/indieauth/no-such-page",
      "/indieauth/not-here/",
      "/indieauth/assets/icon.svg",
      "/indieauth/404.html",
    ]) {
      expect({ path, csp: csp(path) }).toEqual({ path, csp: SCRIPT_FREE["Content-Security-Policy"] });
    }
  });
});

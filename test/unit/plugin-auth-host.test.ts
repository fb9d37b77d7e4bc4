// The build plugin's rules for an auth host of its own (netlify/plugin/auth-host.mjs): what they
// say, where they sit in the blog's _redirects, and what they do, matched by Netlify's own rule
// parser and matcher (the ones `netlify dev` and `netlify serve` use: @netlify/redirect-parser and
// netlify-redirector, the matcher Netlify's edge runs too). Which host a request names is all
// they read, so this is what a deploy does with them, short of Netlify's own routing order (a
// function's path first, then these rules), which test/e2e/blog-plugin.e2e.test.ts runs.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const module = new URL("../../netlify/plugin/auth-host.mjs", import.meta.url).href;
const { authHostRules, withOurRedirects, REDIRECTS_BEGIN, REDIRECTS_END, REFUSED_PAGE } = (await import(module)) as {
  authHostRules: (authHost: string, baseUrl: string, files: string[]) => string[];
  withOurRedirects: (existing: string, rules: string[]) => string;
  REDIRECTS_BEGIN: string;
  REDIRECTS_END: string;
  REFUSED_PAGE: string;
};

interface Match {
  to: string;
  status: number;
  force: boolean;
}
interface Matcher {
  match(request: Record<string, unknown>): Match | null;
}

/** The rules of a _redirects file as Netlify reads them, and a function that routes one URL. */
async function netlifyRules(file: string): Promise<(url: string) => Match | null> {
  const { parseAllRedirects } = (await import("@netlify/redirect-parser")) as unknown as {
    parseAllRedirects: (
      options: Record<string, unknown>,
    ) => Promise<{ redirects: Record<string, unknown>[]; errors: unknown[] }>;
  };
  // Named through a variable: the package ships no types (what it exports is declared here).
  const redirectorPackage = "netlify-redirector";
  const redirector = (
    (await import(redirectorPackage)) as unknown as {
      default: { parseJSON: (json: string, options: object) => Promise<Matcher> };
    }
  ).default;
  const dir = mkdtempSync(join(tmpdir(), "indieauth-redirects-"));
  writeFileSync(join(dir, "_redirects"), file);
  const { redirects, errors } = await parseAllRedirects({
    redirectsFiles: [join(dir, "_redirects")],
    minimal: false,
    configRedirects: [],
  });
  expect(errors).toEqual([]);
  // netlify-cli's shape for the matcher (utils/redirects.js): `from` is `origin`, `query` is `params`.
  const matcher = await redirector.parseJSON(
    JSON.stringify(redirects.map(({ from, query, ...rule }) => ({ ...rule, origin: from, params: query }))),
    {},
  );
  return (raw) => {
    const url = new URL(raw);
    const request = {
      scheme: url.protocol.slice(0, -1),
      host: url.hostname,
      path: url.pathname,
      query: "",
      headers: {},
      cookieValues: {},
      getHeader: () => "",
      getCookie: () => "",
    };
    const found = matcher.match(request);
    return found && { to: found.to, status: found.status, force: Boolean(found.force) };
  };
}

const BLOG_RULES = "# the blog's own\n/old-post  /about/  301\n/*  /index.html  200\n";
/** The plugin's own files, as its manifest lists them (scripts/own-files.ts), under the publish folder. */
const OWN_FILES = [
  "indieauth/index.html",
  "indieauth/sign-in/index.html",
  "indieauth/account/index.html",
  "indieauth/assets/sign-in.js",
  "indieauth/assets/site.css",
  "indieauth/not-here/index.html",
];
const rulesFor = (authHost: string, baseUrl: string) => authHostRules(authHost, baseUrl, OWN_FILES);

describe("an auth host of its own, in the blog's _redirects", () => {
  it("puts its block first, before the blog's rules, and replaces only it when the build runs again", () => {
    const rules = rulesFor("auth.jane.example", "https://auth.jane.example");
    const once = withOurRedirects(BLOG_RULES, rules);
    expect(once.startsWith(`${REDIRECTS_BEGIN}\n`)).toBe(true);
    expect(once.endsWith(`${REDIRECTS_END}\n\n${BLOG_RULES}`)).toBe(true);
    expect(withOurRedirects(once, rules)).toBe(once);
    // Without INDIEAUTH_HOST any longer, the block goes and the blog's rules stay as they were.
    expect(withOurRedirects(once, [])).toBe(BLOG_RULES);
    expect(withOurRedirects("", rules)).toBe(`${[REDIRECTS_BEGIN, ...rules, REDIRECTS_END].join("\n")}\n`);
  });

  it("lists the auth host's own files one by one, then the refusal of everything else there, then the move of the pages off the blog's hosts", () => {
    expect(rulesFor("auth.jane.example", "https://auth.jane.example").filter((line) => !line.startsWith("#"))).toEqual([
      "https://auth.jane.example/  /indieauth/  301!",
      "https://auth.jane.example/account  /indieauth/account/  301!",
      "https://auth.jane.example/indieauth/account/  /indieauth/account/  200!",
      "https://auth.jane.example/indieauth/account/index.html  /indieauth/account/index.html  200!",
      "https://auth.jane.example/indieauth/assets/sign-in.js  /indieauth/assets/sign-in.js  200!",
      "https://auth.jane.example/indieauth/assets/site.css  /indieauth/assets/site.css  200!",
      "https://auth.jane.example/indieauth/  /indieauth/  200!",
      "https://auth.jane.example/indieauth/index.html  /indieauth/index.html  200!",
      "https://auth.jane.example/indieauth/sign-in/  /indieauth/sign-in/  200!",
      "https://auth.jane.example/indieauth/sign-in/index.html  /indieauth/sign-in/index.html  200!",
      `https://auth.jane.example${REFUSED_PAGE}  ${REFUSED_PAGE}index.html  404!`,
      `https://auth.jane.example/*  ${REFUSED_PAGE}  404!`,
      "/indieauth/*  https://auth.jane.example/indieauth/:splat  301!",
    ]);
  });

  it("on the auth host serves only the server's own files, whatever the blog's own rules say", async () => {
    const route = await netlifyRules(
      withOurRedirects(BLOG_RULES, rulesFor("auth.jane.example", "https://auth.jane.example")),
    );
    expect(route("https://auth.jane.example/indieauth/sign-in/")).toEqual({
      to: "/indieauth/sign-in/",
      status: 200,
      force: true,
    });
    // Without the final slash too (Netlify's matcher takes both), to the same page, not a redirect loop.
    expect(route("https://auth.jane.example/indieauth/sign-in")).toEqual({
      to: "/indieauth/sign-in/",
      status: 200,
      force: true,
    });
    expect(route("https://auth.jane.example/indieauth/assets/sign-in.js")).toEqual({
      to: "/indieauth/assets/sign-in.js",
      status: 200,
      force: true,
    });
    expect(route("https://auth.jane.example/")).toMatchObject({ to: "/indieauth/", status: 301 });
    expect(route("https://auth.jane.example/account")).toMatchObject({ to: "/indieauth/account/", status: 301 });
    // The blog's pages, its 404 page, its SPA fallback and its redirects: refused, with our page.
    for (const path of ["/about/", "/index.html", "/404.html", "/old-post", "/assets/site.css", "/posts/hello/"]) {
      expect({ path, match: route(`https://auth.jane.example${path}`) }).toEqual({
        path,
        match: { to: REFUSED_PAGE, status: 404, force: true },
      });
    }
  });

  it("on the auth host refuses every path under /indieauth/ that is not one of the server's files (a forced rewrite of it would get the blog's 404 page)", async () => {
    const route = await netlifyRules(
      withOurRedirects(BLOG_RULES, rulesFor("auth.jane.example", "https://auth.jane.example")),
    );
    for (const path of [
      "/indieauth/no-such-page",
      "/indieauth/assets/no-such.js",
      "/indieauth/sign-in/other.html",
      "/indieauth/404.html",
      "/indieauth/.netlify-indieauth-manifest.json",
    ]) {
      expect({ path, match: route(`https://auth.jane.example${path}`) }).toEqual({
        path,
        match: { to: REFUSED_PAGE, status: 404, force: true },
      });
    }
    // The refusal page itself, at its own address: refused too, before any rule of the blog's
    // (the catch-all alone would rewrite it to itself, which the matcher skips).
    expect(route(`https://auth.jane.example${REFUSED_PAGE}`)).toEqual({
      to: `${REFUSED_PAGE}index.html`,
      status: 404,
      force: true,
    });
  });

  it("on the blog's hosts sends the server's pages to the auth host and leaves the blog's own rules working", async () => {
    const route = await netlifyRules(
      withOurRedirects(BLOG_RULES, rulesFor("auth.jane.example", "https://auth.jane.example")),
    );
    for (const host of ["jane.example", "www.jane.example", "jane-blog.netlify.app"]) {
      expect(route(`https://${host}/indieauth/sign-in/`)).toEqual({
        to: "https://auth.jane.example/indieauth/sign-in/",
        status: 301,
        force: true,
      });
      expect(route(`https://${host}/indieauth/account/`)).toMatchObject({
        to: "https://auth.jane.example/indieauth/account/",
        status: 301,
      });
      expect(route(`https://${host}/old-post`)).toMatchObject({ to: "/about/", status: 301 });
      expect(route(`https://${host}/posts/hello/`)).toMatchObject({ to: "/index.html", status: 200, force: false });
    }
  });

  it("in development keeps the port in the address it sends to, and matches the host by name, over http", async () => {
    const route = await netlifyRules(
      withOurRedirects("", rulesFor("auth.localhost:8888", "http://auth.localhost:8888")),
    );
    expect(route("http://auth.localhost:8888/about/")).toEqual({ to: REFUSED_PAGE, status: 404, force: true });
    expect(route("http://localhost:8888/indieauth/sign-in/")).toMatchObject({
      to: "http://auth.localhost:8888/indieauth/sign-in/",
      status: 301,
    });
  });
});

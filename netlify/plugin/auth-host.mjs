// The rules that give the server a host of its own on the blog's site (INDIEAUTH_HOST, a domain
// alias such as auth.jane.example), for the build plugin (kept apart from index.mjs, which may
// export only event handlers). Written first in the publish folder's _redirects, before the
// blog's own rules (Netlify reads _redirects before netlify.toml, first match wins):
//   on the auth host   the server's own files, each by its exact path (forced); / and /account
//                      lead to them, and every other path, under /indieauth/ too, is refused with
//                      a page of the server's own, so that no blog page (nor the blog's 404 page,
//                      which Netlify's router serves for a forced rewrite to a missing file, with
//                      status 200) ever runs on the sign-in origin;
//   on other hosts     the server's pages move to the auth host.
// The functions' paths need no rule: Netlify routes a function's path before any rule (its
// request chain), and the functions refuse every host but the auth host themselves
// (netlify/lib/http/endpoint.ts).
export const REDIRECTS_BEGIN = "# BEGIN netlify-indieauth (written by its build plugin)";
export const REDIRECTS_END = "# END netlify-indieauth";
const PAGES = "/indieauth";
export const REFUSED_PAGE = `${PAGES}/not-here/`;

/** The rules that serve each of `files` (the plugin's own, as paths under the publish folder:
 * "indieauth/sign-in/index.html") at its addresses on the auth host `here`: a page at its folder's
 * address and its file's, its folder's address without the slash leading there. The refusal page
 * is not among them: it is what every other path gets, with 404. */
function ownFileRules(here, files) {
  const rules = [];
  for (const file of [...files].sort()) {
    const path = `/${file}`;
    if (path === `${REFUSED_PAGE}index.html`) continue;
    // The folder's address; Netlify's matcher takes it with or without its final slash.
    if (path.endsWith("/index.html"))
      rules.push(`${here}${path.slice(0, -"index.html".length)}  ${path.slice(0, -"index.html".length)}  200!`);
    rules.push(`${here}${path}  ${path}  200!`);
  }
  return rules;
}

/** `authHost`: INDIEAUTH_HOST, as it is set (a port only in development); `baseUrl`: BASE_URL,
 * whose scheme the rules match (https on Netlify); `files`: the plugin's own files under the
 * publish folder (scripts/own-files.ts), the only ones the auth host serves. */
export function authHostRules(authHost, baseUrl, files) {
  const { protocol, hostname } = new URL(`${new URL(baseUrl).protocol}//${authHost}`);
  const here = `${protocol}//${hostname}`;
  const home = new URL(baseUrl).origin;
  return [
    "# On the auth host, only the IndieAuth server's own files.",
    `${here}/  ${PAGES}/  301!`,
    `${here}/account  ${PAGES}/account/  301!`,
    ...ownFileRules(here, files),
    "# Every other path there, under /indieauth/ too: the server's refusal, never a page of the blog.",
    `${here}${REFUSED_PAGE}  ${REFUSED_PAGE}index.html  404!`,
    `${here}/*  ${REFUSED_PAGE}  404!`,
    "# On the blog's hosts, the server's pages are on the auth host.",
    `${PAGES}/*  ${home}${PAGES}/:splat  301!`,
  ];
}

/** The _redirects file with our block first (in place of the block an earlier run wrote); without
 * rules, the file without our block. */
export function withOurRedirects(existing, rules) {
  const start = existing.indexOf(REDIRECTS_BEGIN);
  const end = existing.indexOf(REDIRECTS_END);
  let rest = existing;
  if (start !== -1 && end > start)
    rest = `${existing.slice(0, start)}${existing.slice(end + REDIRECTS_END.length).replace(/^\n+/, "")}`;
  if (rules.length === 0) return rest;
  return `${[REDIRECTS_BEGIN, ...rules, REDIRECTS_END].join("\n")}\n${rest === "" ? "" : `\n${rest}`}`;
}

/** The page the auth host answers for every path that is not the server's: no script at all. */
export function refusedPage(baseUrl) {
  const home = new URL(baseUrl).origin;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <title>Not here</title>
    <link rel="stylesheet" href="${PAGES}/assets/site.css">
  </head>
  <body>
    <main class="card" role="main">
      <h1>Not here</h1>
      <p>This address serves only the IndieAuth server.</p>
      <p><a class="button" href="${home}${PAGES}/">The server's home page</a></p>
    </main>
  </body>
</html>
`;
}

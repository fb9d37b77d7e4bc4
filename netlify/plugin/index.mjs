// Netlify build plugin (a plugin module may export only its event handlers): adds this IndieAuth server to an existing site (your blog), on the
// blog's own domain, without copying files. In the blog's netlify.toml:
//
//   [[plugins]]
//     package = "netlify-indieauth"
//
// onPreBuild  checks ME, SECRET, PASSWORD_HASH... before the blog's build command runs, so a
//             production build with a missing or malformed variable stops at once, naming it.
// onPostBuild checks the blog's header rules again, once the other plugins' onBuild (and the
//             onPostBuild of those listed before this one) have run: a plugin that writes CSP
//             rules (a CSP generator) must not replace the pages' own either.
// onBuild     runs after the blog's build command (which may have emptied the publish folder:
//             `rm -rf _site && eleventy`, Hugo's --cleanDestinationDir, Vite's emptyOutDir)
//             and before Netlify bundles the functions. It first stops the build, naming what it
//             found, when the publish folder would serve what must stay private (the site's own
//             folder, .env, .git, a file holding the secret: scripts/publish-check.ts), when
//             <publish>/indieauth/ holds a file it did not write (scripts/own-files.ts), or when
//             a header rule of the blog's would replace its pages' protections (blog-headers.mjs).
//             Then it writes
//               <publish>/indieauth/...                 the pages, and nothing else of the blog's;
//                                                       the list of them, to remove only them next time
//               <publish>/_headers                      the pages' security headers, appended in a
//                                                       marked block (kept apart from the blog's)
//               .netlify/v1/functions/indieauth-*/      each endpoint's function, prebuilt with esbuild
//                                                       (scripts/build-functions.ts), routed with config.path
// Headers go in _headers rather than the Frameworks API's .netlify/v1/config.json: Netlify
// reads _headers in production, and `netlify dev` and `netlify serve` read it too, whereas
// `netlify dev` ignores config.json. Routes and headers come from this package's netlify.toml,
// the same ones a standalone deployment uses.
import { existsSync, statSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "smol-toml";
import { register } from "tsx/esm/api";
import { authHostRules, REFUSED_PAGE, refusedPage, withOurRedirects } from "./auth-host.mjs";
import { blogHeaderConflicts, conflictMessage } from "./blog-headers.mjs";
import { pageHeaderRules, withOurHeaders } from "./headers.mjs";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FUNCTION_PREFIX = "/.netlify/functions/";

async function packageToml() {
  return parse(await readFile(join(packageRoot, "netlify.toml"), "utf8"));
}

/** Runs `use` with this package's TypeScript modules importable (through tsx). */
async function withTypeScript(use) {
  const unregister = register();
  try {
    return await use((path) => import(pathToFileURL(join(packageRoot, path)).href));
  } finally {
    await unregister();
  }
}

/** function name -> the paths it serves, from this package's [[redirects]]. */
function routes(toml) {
  const byFunction = new Map();
  for (const rule of toml.redirects ?? []) {
    if (!String(rule.to).startsWith(FUNCTION_PREFIX)) continue;
    const name = String(rule.to).slice(FUNCTION_PREFIX.length);
    byFunction.set(name, [...(byFunction.get(name) ?? []), String(rule.from)]);
  }
  return byFunction;
}

/** The functions, prebuilt (scripts/build-functions.ts), each with its routes, through the
 * Frameworks API. A stub from an older version of this plugin (indieauth-<name>.mts) would
 * clash with its folder, so it goes. */
async function writeFunctions(siteRoot, toml, load) {
  const dir = join(siteRoot, ".netlify", "v1", "functions");
  const paths = routes(toml);
  const { buildFunctions, functionNames } = await load("scripts/build-functions.ts");
  for (const name of await functionNames()) await rm(join(dir, `indieauth-${name}.mts`), { force: true });
  const built = await buildFunctions(dir, {
    prefix: "indieauth-",
    built: "plugin",
    config: (name) => (paths.has(name) ? { path: paths.get(name) } : undefined),
  });
  return built.map((f) => f.name.slice("indieauth-".length));
}

async function writeHeaders(publishDir, toml) {
  const file = join(publishDir, "_headers");
  const existing = existsSync(file) ? await readFile(file, "utf8") : "";
  await writeFile(file, withOurHeaders(existing, pageHeaderRules(toml)));
}

/** The auth host (INDIEAUTH_HOST, as set) when the server runs on one, else undefined. */
const authHostOf = (config) =>
  config?.setup === "auth-host" ? process.env.INDIEAUTH_HOST.trim().toLowerCase() : undefined;

/** The rules that keep the auth host to the plugin's own `files`, first in _redirects (with the
 * auth host only; without it, no block of ours). */
async function writeAuthHostRules(publishDir, config, files) {
  const file = join(publishDir, "_redirects");
  const existing = existsSync(file) ? await readFile(file, "utf8") : "";
  const authHost = authHostOf(config);
  const updated = withOurRedirects(existing, authHost ? authHostRules(authHost, config.baseUrl, files) : []);
  if (updated !== existing) await writeFile(file, updated);
}

const foreignFiles = (shown, files) =>
  `netlify-indieauth: ${shown}/indieauth/ holds files this plugin did not write (or that changed since it wrote them), and it writes the server's pages there:${files.map((f) => `\n  - ${shown}/${f}`).join("")}\n` +
  "The build stops so that nothing of the blog's is deleted or overwritten. Move them elsewhere in the blog (the server owns the addresses under /indieauth/). " +
  `If they are pages an earlier version of this plugin wrote (before it listed its files), delete the folder ${shown}/indieauth/ and build again.`;

/** The checks that stop the build before anything is written, then the pages (the plugin's own
 * files, listed), each step through the package's TypeScript scripts. */
async function buildPages(load, { siteRoot, publishDir, shown }) {
  const { checkPublishFolder, describeCheck } = await load("scripts/publish-check.ts");
  const check = describeCheck(await checkPublishFolder(siteRoot, publishDir, process.env), shown, siteRoot);
  if (check.warning) console.warn(`netlify-indieauth warning: ${check.warning}`);
  if (check.refusal) return { failure: `netlify-indieauth: ${check.refusal}` };
  const own = await load("scripts/own-files.ts");
  const pagesDir = join(publishDir, "indieauth");
  const state = await own.folderState(publishDir, pagesDir);
  if (state.foreign.length > 0) return { failure: foreignFiles(shown, state.foreign) };
  await own.removeOurs(pagesDir, state.ours);

  const { buildSite } = await load("scripts/build.ts");
  const { loadConfig } = await load("netlify/lib/platform/config.ts");
  // ME's page (for its h-card) and the photo are read from the publish folder when on this site.
  const siteOrigins = [process.env.BASE_URL, process.env.URL].flatMap((url) =>
    URL.canParse(url ?? "") ? [new URL(url).origin] : [],
  );
  const { warnings, notes } = await buildSite(process.env, publishDir, { standalone: false, siteOrigins });
  for (const note of notes) console.log(`netlify-indieauth: ${note}`);
  const result = loadConfig(process.env, "plugin");
  const config = result.ok ? result.config : undefined;
  if (authHostOf(config)) {
    await mkdir(join(publishDir, REFUSED_PAGE), { recursive: true });
    await writeFile(join(publishDir, REFUSED_PAGE, "index.html"), refusedPage(config.baseUrl));
  }
  const files = (await own.recordOurs(pagesDir)).map((path) => `indieauth/${path}`);
  return { warnings, config, files };
}

const isProduction = () => process.env.CONTEXT === "production";

/** Under `npx netlify-indieauth dev`: the run's ME and BASE_URL over .env's (scripts/dev-addresses.ts). */
async function takeRunAddresses(load) {
  const { takeDevAddresses } = await load("scripts/dev-addresses.ts");
  for (const note of takeDevAddresses(process.env)) console.log(`netlify-indieauth: ${note}`);
}

/** Checks the variables before the blog's build command spends any time. */
export const onPreBuild = async ({ utils }) => {
  const problems = await withTypeScript(async (load) => {
    await takeRunAddresses(load);
    const { loadConfig } = await load("netlify/lib/platform/config.ts");
    // In a blog: name the package's command, not this repository's npm script.
    const result = loadConfig(process.env, "plugin", { hashPasswordCommand: "npx netlify-indieauth hash-password" });
    return result.ok ? [] : result.problems;
  });
  const production = isProduction();
  for (const problem of problems)
    console.warn(`netlify-indieauth ${production ? "error" : "warning"}: ${problem.message}. ${problem.fix}.`);
  if (production && problems.length > 0) {
    return utils.build.failBuild(
      `netlify-indieauth: set ${problems.map((p) => p.variable).join(", ")} in the site's environment variables, then deploy again.`,
    );
  }
};

/** After the blog's build command: the pages, their headers and the functions. */
export const onBuild = async ({ constants, netlifyConfig, utils }) => {
  const siteRoot = process.cwd();
  const publishDir = resolve(siteRoot, constants.PUBLISH_DIR);
  const shown = relative(siteRoot, publishDir) || ".";
  if (!existsSync(publishDir) || !statSync(publishDir).isDirectory()) {
    return utils.build.failBuild(
      `netlify-indieauth: the publish folder "${shown}" does not exist after the build command. ` +
        "Check [build] publish in netlify.toml (it must be the folder your blog's build writes, e.g. _site for Eleventy, public for Hugo, dist for Vite or Astro) and that the build command writes it.",
    );
  }

  // The pages and the functions are built by the same TypeScript build scripts as a standalone deployment.
  const toml = await packageToml();
  const place = { siteRoot, publishDir, shown };
  const built = await withTypeScript(async (load) => {
    await takeRunAddresses(load);
    const pages = await buildPages(load, place);
    if (pages.failure) return pages;
    const ourRules = pageHeaderRules(toml);
    const conflicts = await blogHeaderConflicts({
      ...place,
      configPath: constants.CONFIG_PATH,
      configHeaders: netlifyConfig?.headers,
      ourRules,
      files: pages.files,
    });
    if (conflicts.length > 0) return { failure: conflictMessage(conflicts) };
    return { ...pages, functions: await writeFunctions(siteRoot, toml, load) };
  });
  if (built.failure) return utils.build.failBuild(built.failure);
  const { warnings, functions, config, files } = built;
  for (const warning of warnings) console.warn(`netlify-indieauth warning: ${warning}`);
  await writeHeaders(publishDir, toml);
  await writeAuthHostRules(publishDir, config, files);
  const authHost = authHostOf(config);
  const where = authHost
    ? `, on its own host ${authHost} (rules first in ${shown}/_redirects)`
    : " (sharing the blog's origin: see the docs for an auth. host of its own)";
  console.log(
    `netlify-indieauth: pages in ${shown}/indieauth/, their headers in ${shown}/_headers, functions ${functions.join(", ")}${where}`,
  );
};

/** After every plugin's onBuild: the blog's header rules once more, as other plugins left them. */
export const onPostBuild = async ({ constants, netlifyConfig, utils }) => {
  const siteRoot = process.cwd();
  const publishDir = resolve(siteRoot, constants.PUBLISH_DIR);
  const pagesDir = join(publishDir, "indieauth");
  const recorded = await withTypeScript(async (load) => (await load("scripts/own-files.ts")).recordedFiles(pagesDir));
  if (recorded.length === 0) return;
  const place = { siteRoot, publishDir, shown: relative(siteRoot, publishDir) || "." };
  const ourRules = pageHeaderRules(await packageToml());
  const files = recorded.map((path) => `indieauth/${path}`);
  const conflicts = await blogHeaderConflicts({
    ...place,
    configPath: constants.CONFIG_PATH,
    configHeaders: netlifyConfig?.headers,
    ourRules,
    files,
  });
  if (conflicts.length > 0) return utils.build.failBuild(conflictMessage(conflicts));
};

// Netlify build plugin: adds this IndieAuth server to an existing site (your blog), on the
// blog's own domain, without copying files. In the blog's netlify.toml:
//
//   [[plugins]]
//     package = "netlify-indieauth"
//
// During the blog's build it writes, through Netlify's Frameworks API:
//   .netlify/v1/functions/indieauth-*.mts   one stub per endpoint, routed with config.path
//   .netlify/v1/config.json                  the security headers of the pages (merged)
// and the pages themselves into the blog's publish folder under /indieauth/ only, so the
// blog's own pages and assets are never touched. Routes and headers are read from this
// package's netlify.toml, the same ones a standalone deployment uses.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { register } from "tsx/esm/api";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const FUNCTION_PREFIX = "/.netlify/functions/";

async function packageToml() {
  return parse(await readFile(join(packageRoot, "netlify.toml"), "utf8"));
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

async function writeFunctionStubs(siteRoot, toml) {
  const dir = join(siteRoot, ".netlify", "v1", "functions");
  await mkdir(dir, { recursive: true });
  const stub = (name, config) => {
    const target = relative(dir, join(packageRoot, "netlify", "functions", `${name}.ts`)).split("\\").join("/");
    return `// Written by the netlify-indieauth build plugin.\nexport { default } from "${target.startsWith(".") ? target : `./${target}`}";\nexport const config = ${JSON.stringify(config)};\n`;
  };
  const written = [];
  for (const [name, paths] of routes(toml)) {
    await writeFile(join(dir, `indieauth-${name}.mts`), stub(name, { path: paths }));
    written.push(name);
  }
  await writeFile(join(dir, "indieauth-cleanup.mts"), stub("cleanup", { schedule: "@hourly" }));
  return [...written, "cleanup"];
}

async function mergeHeaders(siteRoot, toml) {
  const file = join(siteRoot, ".netlify", "v1", "config.json");
  const existing = existsSync(file) ? JSON.parse(await readFile(file, "utf8")) : {};
  const ours = (toml.headers ?? []).filter((rule) => String(rule.for).startsWith("/indieauth/"));
  existing.headers = [...(existing.headers ?? []), ...ours];
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(existing, null, 2)}\n`);
}

export const onPreBuild = async ({ constants, utils }) => {
  const siteRoot = process.cwd();
  const publishDir = resolve(siteRoot, constants.PUBLISH_DIR);
  const production = process.env.CONTEXT === "production";

  // The pages are built by the same TypeScript build script as a standalone deployment.
  const unregister = register();
  try {
    const { buildSite } = await import(join(packageRoot, "scripts", "build.ts"));
    const { problems, warnings } = await buildSite(process.env, publishDir, { standalone: false });
    for (const problem of problems) console.warn(`netlify-indieauth ${production ? "error" : "warning"}: ${problem.message}`);
    for (const warning of warnings) console.warn(`netlify-indieauth warning: ${warning}`);
    if (production && problems.length > 0) {
      return utils.build.failBuild(`netlify-indieauth: set ${problems.map((p) => p.variable).join(", ")} in the site's environment variables, then deploy again.`);
    }
  } finally {
    await unregister();
  }

  const toml = await packageToml();
  const functions = await writeFunctionStubs(siteRoot, toml);
  await mergeHeaders(siteRoot, toml);
  console.log(`netlify-indieauth: pages in ${relative(siteRoot, publishDir) || "."}/indieauth/, functions ${functions.join(", ")}`);
};

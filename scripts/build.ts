// Builds the static site into dist/: Liquid templates -> HTML (the owner's name, photo and
// this deployment's URLs baked in), esbuild -> the pages' scripts, and the stylesheet.
// Prints the same configuration warnings the endpoints would give.
import { copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build as esbuild } from "esbuild";
import { Liquid } from "liquidjs";
import { loadConfig, type ConfigProblem, type Env } from "../netlify/lib/platform/config.ts";
import { ACCOUNT_PAGE, ASSETS, HOME_PAGE, SELF_TEST_PAGE, SIGN_IN_PAGE } from "../netlify/lib/pages/paths.ts";
import { expectedTargets } from "../netlify/lib/owner/profile-links.ts";
import { loadEnvFile } from "./env.ts";
import { BUILT_FUNCTIONS, buildFunctions } from "./build-functions.ts";
import { ownerShown } from "./owner-card.ts";
import { copyOwnerPhoto } from "./owner-photo.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const site = join(root, "site");

interface BuildResult {
  outDir: string;
  problems: ConfigProblem[];
  /** Things the build could not do that do not stop it (the owner's photo, say). */
  warnings: string[];
  /** What it chose that the owner may want to know (the name and photo from ME's h-card). */
  notes: string[];
}

function discoveryLinks(baseUrl: string): { rel: string; href: string }[] {
  return Object.entries(expectedTargets(baseUrl)).map(([rel, href]) => ({ rel, href }));
}

function linkTags(baseUrl: string): string {
  return discoveryLinks(baseUrl)
    .map(({ rel, href }) => `<link rel="${rel}" href="${href}">`)
    .join("\n");
}

/** A URL in pieces that end after each "/" or ".", so a narrow screen breaks it only there. */
function urlParts(url: string): string[] {
  return url.match(/[^/.]*[/.]|[^/.]+$/g) ?? [url];
}

function endpoints(baseUrl: string): { url_parts: string[]; does: string }[] {
  const list = [
    {
      url: `${baseUrl}/.well-known/oauth-authorization-server`,
      does: "Server metadata (RFC 8414) for clients to discover everything else.",
    },
    { url: `${baseUrl}/auth`, does: "GET: the sign-in and consent page. POST: redeem a code for your profile URL." },
    {
      url: `${baseUrl}/token`,
      does: "POST: redeem a code or refresh token for an access token. GET: legacy token verification.",
    },
    { url: `${baseUrl}/introspect`, does: "POST: token verification (RFC 7662) for Micropub endpoints." },
    { url: `${baseUrl}/revoke`, does: "POST: token revocation (RFC 7009)." },
    { url: `${baseUrl}/userinfo`, does: "GET: your profile, for a token with the profile scope." },
    {
      url: `${baseUrl}/register`,
      does: "POST: registration (RFC 7591) for apps without a client metadata document; it stores nothing.",
    },
  ];
  return list.map(({ url, does }) => ({ url_parts: urlParts(url), does }));
}

interface BuildOptions {
  /** Deployed on its own: the home page is also served at "/", and the output folder is emptied
   * first. Added to a blog: never touch anything outside /indieauth/, and delete nothing: the
   * plugin removes its own earlier files itself (scripts/own-files.ts), never the blog's. */
  standalone?: boolean;
  /** Added to a blog: its origins, whose pages (ME's, the photo) are read from `outDir`. */
  siteOrigins?: string[];
}

export async function buildSite(
  env: Env = process.env,
  outDir = join(root, "dist"),
  options: BuildOptions = {},
): Promise<BuildResult> {
  const standalone = options.standalone ?? true;
  const result = loadConfig(env, standalone ? "standalone" : "plugin");
  const problems = result.ok ? [] : result.problems;
  const config = result.ok ? result.config : undefined;
  const baseUrl = config?.baseUrl ?? (env.BASE_URL || env.URL || "").replace(/\/$/, "");
  const me = config?.me ?? env.ME ?? "";
  const profile = config?.profile;

  // outputEscape: every value printed by a template is HTML-escaped unless marked raw.
  const liquid = new Liquid({
    root: join(site, "templates"),
    extname: ".liquid",
    outputEscape: "escape",
    strictVariables: false,
  });
  const render = async (
    template: string,
    data: Record<string, unknown>,
    title: string,
    script?: string,
    head: Record<string, unknown> = {},
  ): Promise<string> => {
    const content = (await liquid.renderFile(template, data)) as string;
    return (await liquid.renderFile("layout", { title, script, content, assets: ASSETS, ...head })) as string;
  };
  const write = async (path: string, html: string) => {
    await mkdir(dirname(join(outDir, path, "index.html")), { recursive: true });
    await writeFile(join(outDir, path, "index.html"), html);
  };

  if (standalone) await rm(outDir, { recursive: true, force: true });
  await mkdir(join(outDir, ASSETS), { recursive: true });

  const development = config?.development ?? false;
  const place = {
    development,
    ...(options.siteOrigins ? { site: { origins: options.siteOrigins, dir: outDir } } : {}),
  };
  // ME as this deployment's own root (npm start) is a page of ours: no h-card to read there.
  const owner = await ownerShown(profile, me, { ...place, readCard: !(standalone && me === `${baseUrl}/`) });
  const name = owner.name;
  const homeData = {
    me,
    base_url: baseUrl,
    problems,
    link_tags: linkTags(baseUrl),
    endpoints: endpoints(baseUrl),
    has_email: Boolean(profile?.email),
  };
  await write(HOME_PAGE, await render("index", homeData, `IndieAuth for ${me}`, "home"));
  if (standalone) {
    // When ME is this deployment's own root (as in local development), "/" is the profile page
    // itself, so it carries the discovery links that clients look for there.
    const isProfile = me !== "" && me === `${baseUrl}/`;
    await write(
      "/",
      await render(
        "index",
        homeData,
        `IndieAuth for ${me}`,
        "home",
        isProfile ? { discovery_links: discoveryLinks(baseUrl) } : {},
      ),
    );
  }
  const warnings: string[] = [];
  let photo: string | undefined;
  if (owner.photo) {
    const copied = await copyOwnerPhoto(owner.photo.url, join(outDir, ASSETS), { ...place, from: owner.photo.from });
    if ("file" in copied) photo = `${ASSETS}/${copied.file}`;
    else warnings.push(copied.warning);
  }
  await write(SIGN_IN_PAGE, await render("sign-in", { me, name, photo }, "Sign in", "sign-in"));
  await write(SELF_TEST_PAGE, await render("self-test", {}, "Self-test", "self-test"));
  await write(
    ACCOUNT_PAGE,
    await render("account", { me, name, photo, assets: ASSETS }, "Your IndieAuth account", "account", {
      style: "account",
    }),
  );

  await esbuild({
    entryPoints: {
      "sign-in": join(site, "scripts", "sign-in.ts"),
      home: join(site, "scripts", "home.ts"),
      "self-test": join(site, "scripts", "self-test.ts"),
      account: join(site, "scripts", "account.ts"),
      "account-alerts": join(site, "scripts", "account-alerts.ts"),
      "account-connections": join(site, "scripts", "account-connections.ts"),
    },
    outdir: join(outDir, ASSETS),
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2020",
    logLevel: "warning",
  });
  // The stylesheets are minified too: every page loads site.css, the sign-in page within its
  // byte budget; the account page adds the console's own.
  await esbuild({
    entryPoints: [join(site, "styles", "site.css"), join(site, "styles", "account.css")],
    outdir: join(outDir, ASSETS),
    minify: true,
    logLevel: "warning",
  });
  await copyFile(join(site, "styles", "icon.svg"), join(outDir, ASSETS, "icon.svg"));
  return { outDir, problems, warnings, notes: owner.note ? [owner.note] : [] };
}

// Run as a script: `npm run build`.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  loadEnvFile();
  const strict = process.env.CONTEXT === "production";
  const { outDir, problems, warnings, notes } = await buildSite();
  for (const note of notes) console.log(note);
  for (const problem of problems) console.warn(`${strict ? "error" : "warning"}: ${problem.message}. ${problem.fix}.`);
  for (const warning of warnings) console.warn(`warning: ${warning}`);
  if (strict && problems.length > 0) {
    console.error("The production build stops here: set the variables above in Netlify, then deploy again.");
    process.exit(1);
  }
  await rm(BUILT_FUNCTIONS, { recursive: true, force: true });
  const functions = await buildFunctions(BUILT_FUNCTIONS);
  console.log(
    `Built ${outDir} (the pages) and ${relative(root, BUILT_FUNCTIONS)} (${functions.map((f) => f.name).join(", ")})`,
  );
}

// The build plugin's onBuild stops the blog's build, naming what it found, before it writes
// anything: a publish folder that would serve what must stay private (the site's own folder,
// .env, .git, a file holding SECRET's or PASSWORD_HASH's value), a file under <publish>/indieauth/
// that the plugin did not write, and a header rule of the blog's (netlify.toml [[headers]], or the
// publish folder's _headers) that would replace the pages' own protections. The real handler,
// in a real site folder; `failBuild` throws as Netlify's does.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "smol-toml";
import { recordOurs } from "../../scripts/own-files.ts";
import { testEnv } from "../helpers/env.ts";

type Handler = (options: {
  constants: Record<string, string>;
  netlifyConfig: { headers: unknown[] };
  utils: { build: { failBuild: (message: string) => never } };
}) => Promise<void>;
const plugin = (await import(new URL("../../netlify/plugin/index.mjs", import.meta.url).href)) as {
  onBuild: Handler;
  onPostBuild: Handler;
};
const headersModule = (await import(new URL("../../netlify/plugin/headers.mjs", import.meta.url).href)) as {
  pageHeaderRules: (toml: unknown) => unknown[];
  withOurHeaders: (existing: string, rules: unknown[]) => string;
};

class BuildFailed extends Error {}
const failBuild = (message: string): never => {
  throw new BuildFailed(message);
};

let site: string;
let cwd: string;
const saved: Record<string, string | undefined> = {};

beforeEach(async () => {
  site = mkdtempSync(join(tmpdir(), "indieauth-plugin-site-"));
  mkdirSync(join(site, "public"));
  writeFileSync(join(site, "public", "index.html"), "<!doctype html><title>Jane's blog</title>\n");
  const env = await testEnv({
    BASE_URL: undefined,
    PROFILE_PHOTO: undefined,
    URL: "https://jane.example",
    CONTEXT: "dev",
  });
  for (const [name, value] of Object.entries(env)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  cwd = process.cwd();
  process.chdir(site);
});

afterEach(() => {
  process.chdir(cwd);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(site, { recursive: true, force: true });
});

/** Runs onBuild (or `handler`) for publish folder `publish` (and the blog's netlify.toml, if
 * written); the message it stopped the build with, or undefined when it went through. */
async function onBuild(
  publish: string,
  configHeaders: unknown[] = [],
  handler: Handler = plugin.onBuild,
): Promise<string | undefined> {
  try {
    await handler({
      constants: { PUBLISH_DIR: publish, CONFIG_PATH: join(site, "netlify.toml") },
      netlifyConfig: { headers: configHeaders },
      utils: { build: { failBuild } },
    });
    return undefined;
  } catch (error) {
    if (error instanceof BuildFailed) return error.message;
    throw error;
  }
}

/** Every file under the site folder. */
function files(dir = site, under = ""): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((entry) => {
    const path = under === "" ? entry.name : `${under}/${entry.name}`;
    return entry.isDirectory() ? files(dir, path) : [path];
  });
}

describe("the plugin refuses a publish folder that would serve what must stay private", () => {
  it('the site\'s own folder (publish = "."), where .env, .git and node_modules live', async () => {
    writeFileSync(join(site, ".env"), `SECRET=${process.env.SECRET}\n`);
    const before = files();
    const message = await onBuild(".");
    expect(message).toContain('the publish folder "." would serve what must stay private');
    expect(message).toContain("the publish folder is the site's own folder");
    expect(message).toContain('publish = "public"');
    expect(files()).toEqual(before);
  });

  it("a folder above the site's", async () => {
    expect(await onBuild("..")).toContain("the publish folder is the site's own folder or one above it");
  });

  it("a publish folder holding .env, .git, or a file with SECRET's or PASSWORD_HASH's value, naming each", async () => {
    writeFileSync(join(site, "public", ".env"), "ME=https://jane.example/\n");
    mkdirSync(join(site, "public", ".git"));
    writeFileSync(join(site, "public", ".git", "config"), "[core]\n");
    mkdirSync(join(site, "public", "notes"));
    writeFileSync(join(site, "public", "notes", "setup.txt"), `my secret is ${process.env.SECRET}\n`);
    writeFileSync(join(site, "public", "backup.json"), JSON.stringify({ hash: process.env.PASSWORD_HASH }));
    const before = files();
    const message = await onBuild("public");
    expect(message).toContain('the publish folder "public" would serve what must stay private');
    expect(message).toContain("- .env: an environment file");
    expect(message).toContain("- .git: a git repository");
    expect(message).toContain("- notes/setup.txt: holds the value of SECRET");
    expect(message).toContain("- backup.json: holds the value of PASSWORD_HASH");
    // Nothing written: no pages, no headers.
    expect(files()).toEqual(before);
  });
});

describe("the plugin never deletes or overwrites a file of the blog's under <publish>/indieauth/", () => {
  it("stops, naming a post of the blog's there, and leaves it as it was", async () => {
    mkdirSync(join(site, "public", "indieauth"));
    writeFileSync(join(site, "public", "indieauth", "post.html"), "<p>Why I sign in with my own domain</p>\n");
    writeFileSync(join(site, "public", "indieauth", "index.html"), "<p>My IndieAuth notes</p>\n");
    const message = await onBuild("public");
    expect(message).toContain("public/indieauth/ holds files this plugin did not write");
    expect(message).toContain("- public/indieauth/post.html");
    expect(message).toContain("- public/indieauth/index.html");
    expect(readFileSync(join(site, "public", "indieauth", "post.html"), "utf8")).toBe(
      "<p>Why I sign in with my own domain</p>\n",
    );
    expect(readFileSync(join(site, "public", "indieauth", "index.html"), "utf8")).toBe("<p>My IndieAuth notes</p>\n");
    expect(readdirSync(join(site, "public", "indieauth")).sort()).toEqual(["index.html", "post.html"]);
    expect(existsSync(join(site, "public", "_headers"))).toBe(false);
  });
});

describe("the plugin stops at a header rule of the blog's that would replace the pages' protections", () => {
  it('netlify.toml\'s [[headers]] for "/*" setting a CSP and X-Frame-Options', async () => {
    writeFileSync(
      join(site, "netlify.toml"),
      '[build]\n  publish = "public"\n\n[[headers]]\n  for = "/*"\n  [headers.values]\n    Content-Security-Policy = "frame-ancestors \'self\'"\n    X-Frame-Options = "SAMEORIGIN"\n\n[[headers]]\n  for = "/posts/*"\n  [headers.values]\n    Cache-Control = "public, max-age=600"\n',
    );
    // Netlify hands the plugin the resolved configuration too: the same rules.
    const message = await onBuild("public", [
      { for: "/*", values: { "Content-Security-Policy": "frame-ancestors 'self'", "X-Frame-Options": "SAMEORIGIN" } },
      { for: "/posts/*", values: { "Cache-Control": "public, max-age=600" } },
    ]);
    expect(message).toContain(
      "the blog's own header rules would replace the protections of the server's pages under /indieauth/",
    );
    expect(message).toContain(
      '- netlify.toml [[headers]], the rule for "/*": Content-Security-Policy, X-Frame-Options (it matches /indieauth/sign-in/)',
    );
    // Named once, and a rule narrowed to the blog's own paths is not named at all.
    expect(message?.match(/the rule for "\/\*"/g)).toHaveLength(1);
    expect(message).not.toContain('the rule for "/posts/*"');
    expect(message).toContain("Narrow each rule to the blog's own paths");
    // The blog's _headers got no block of ours.
    expect(existsSync(join(site, "public", "_headers"))).toBe(false);
  }, 60_000);

  it("the publish folder's _headers: a /* rule for Cross-Origin-Opener-Policy, a /:placeholder rule for Cache-Control", async () => {
    writeFileSync(
      join(site, "public", "_headers"),
      "/*\n  Cross-Origin-Opener-Policy: unsafe-none\n/:page\n  Cache-Control: public, max-age=3600\n/assets/*\n  Cache-Control: public, max-age=31536000\n",
    );
    const message = await onBuild("public");
    expect(message).toContain(
      '- public/_headers, the rule for "/*": Cross-Origin-Opener-Policy (it matches /indieauth/sign-in/)',
    );
    expect(message).toContain('- public/_headers, the rule for "/:page": Cache-Control (it matches /indieauth/)');
    expect(message).not.toContain('the rule for "/assets/*"');
  }, 60_000);

  it("a rule another build plugin added to the resolved configuration", async () => {
    const message = await onBuild("public", [{ for: "/indieauth/*", values: { "X-Frame-Options": "SAMEORIGIN" } }]);
    expect(message).toContain(
      "- the site's resolved configuration (netlifyConfig.headers: another build plugin's, or a _headers read before the build command), the rule for \"/indieauth/*\": X-Frame-Options",
    );
  }, 60_000);
});

describe("the plugin checks the blog's header rules again after every plugin's onBuild", () => {
  it("stops at a rule another plugin (a CSP generator) appended to _headers after the plugin's block", async () => {
    mkdirSync(join(site, "public", "indieauth", "sign-in"), { recursive: true });
    writeFileSync(
      join(site, "public", "indieauth", "sign-in", "index.html"),
      "<!doctype html><title>Sign in</title>\n",
    );
    await recordOurs(join(site, "public", "indieauth"));
    const toml = parse(readFileSync(new URL("../../netlify.toml", import.meta.url), "utf8"));
    const ours = headersModule.withOurHeaders("", headersModule.pageHeaderRules(toml));
    writeFileSync(join(site, "public", "_headers"), ours);
    expect(await onBuild("public", [], plugin.onPostBuild)).toBeUndefined();
    writeFileSync(
      join(site, "public", "_headers"),
      `${ours}/*\n  Content-Security-Policy: script-src 'self' 'unsafe-inline'\n`,
    );
    expect(await onBuild("public", [], plugin.onPostBuild)).toContain(
      '- public/_headers, the rule for "/*": Content-Security-Policy (it matches /indieauth/sign-in/)',
    );
  });
});

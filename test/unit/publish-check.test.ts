// What a blog's publish folder must not serve (scripts/publish-check.ts), as the build plugin and
// `npx netlify-indieauth dev` check it: refusals for the secret's value wherever it hides (a
// large text file, across a read's boundary), warnings for the project's files with the
// generator's own way to leave them out; large binary files are not read.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkPublishFolder, describeCheck } from "../../scripts/publish-check.ts";

const SECRET = "a-secret-of-the-server-that-is-long-enough-0123456789";
const PASSWORD_HASH = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNo";
const env = { SECRET, PASSWORD_HASH };

let site: string;
let publish: string;
beforeEach(() => {
  site = mkdtempSync(join(tmpdir(), "indieauth-publish-"));
  publish = join(site, "_site");
  mkdirSync(publish);
  writeFileSync(join(publish, "index.html"), "<!doctype html><title>Blog</title>\n");
});
afterEach(() => rmSync(site, { recursive: true, force: true }));

describe("the secret's value in a published file", () => {
  it("is found in a large text file, even across the boundary of two reads", async () => {
    // 1 MiB reads: the value starts a few bytes before the end of the first.
    const filler = "x".repeat(1024 * 1024 - 10);
    writeFileSync(join(publish, "search-index.json"), `${filler}${SECRET}${"y".repeat(2 * 1024 * 1024)}`);
    expect((await checkPublishFolder(site, publish, env)).refusals).toEqual([
      "search-index.json: holds the value of SECRET",
    ]);
  });

  it("is found in a binary file (an uncompressed archive of the site holds .env as it is); a video over 16 MB is not read", async () => {
    writeFileSync(
      join(publish, "photo.jpg"),
      Buffer.concat([Buffer.from([0xff, 0xd8, 0, 1]), Buffer.from(PASSWORD_HASH)]),
    );
    writeFileSync(
      join(publish, "site-backup.tar"),
      Buffer.concat([Buffer.alloc(3 * 1024 * 1024, 0), Buffer.from(`SECRET=${SECRET}\n`)]),
    );
    writeFileSync(join(publish, "talk.mp4"), Buffer.concat([Buffer.alloc(17 * 1024 * 1024, 0), Buffer.from(SECRET)]));
    expect((await checkPublishFolder(site, publish, env)).refusals.sort()).toEqual([
      "photo.jpg: holds the value of PASSWORD_HASH",
      "site-backup.tar: holds the value of SECRET",
    ]);
  });

  it("is found through a link to a file outside the folder, and a link to the site's folder is refused", async () => {
    writeFileSync(join(site, "settings.txt"), `SECRET=${SECRET}\n`);
    symlinkSync(join(site, "settings.txt"), join(publish, "settings.txt"));
    symlinkSync(site, join(publish, "source"));
    expect((await checkPublishFolder(site, publish, env)).refusals.sort()).toEqual([
      "settings.txt: holds the value of SECRET",
      "source: a link to the site's own folder (everything in it would be served)",
    ]);
  });

  it("is not looked for when it is too short to tell from chance (the server refuses such a secret anyway)", async () => {
    writeFileSync(join(publish, "post.html"), "<p>short</p>\n");
    expect((await checkPublishFolder(site, publish, { SECRET: "short" })).refusals).toEqual([]);
  });

  it("an example environment file is not an environment file", async () => {
    writeFileSync(join(publish, ".env.example"), "SECRET=\n");
    writeFileSync(join(publish, ".env.local"), "SECRET=\n");
    expect((await checkPublishFolder(site, publish, env)).refusals).toEqual([
      ".env.local: an environment file (the server's SECRET and PASSWORD_HASH live in one)",
    ]);
  });
});

describe("the project's files in the publish folder", () => {
  it("warn, naming each, with Jekyll's exclude: for a Jekyll site", async () => {
    writeFileSync(join(site, "_config.yml"), "title: Blog\n");
    for (const file of ["package.json", "package-lock.json", "netlify.toml"])
      writeFileSync(join(publish, file), "{}\n");
    mkdirSync(join(publish, "node_modules", "netlify-indieauth"), { recursive: true });
    writeFileSync(join(publish, "node_modules", "netlify-indieauth", "package.json"), "{}\n");
    mkdirSync(join(publish, "netlify", "functions"), { recursive: true });
    const check = await checkPublishFolder(site, publish, env);
    expect(check.refusals).toEqual([]);
    expect(check.warnings.sort()).toEqual([
      "netlify.toml: a project file",
      "netlify/: the site's function sources",
      "node_modules/: installed packages, this one's sources among them",
      "package-lock.json: a project file",
      "package.json: a project file",
    ]);
    const { warning, refusal } = describeCheck(check, "_site", site);
    expect(refusal).toBeUndefined();
    expect(warning).toContain('the publish folder "_site" holds files a blog does not need to serve');
    expect(warning).toContain("Leave them out of the build: list them under `exclude:` in _config.yml (Jekyll).");
  });

  it("name Hugo's and Eleventy's settings for their sites", async () => {
    writeFileSync(join(publish, "package.json"), "{}\n");
    const check = await checkPublishFolder(site, publish, env);
    writeFileSync(join(site, "hugo.toml"), "");
    expect(describeCheck(check, "public", site).warning).toContain("`ignoreFiles` in hugo.toml");
    rmSync(join(site, "hugo.toml"));
    writeFileSync(join(site, "eleventy.config.js"), "");
    expect(describeCheck(check, "_site", site).warning).toContain(".eleventyignore");
  });
});

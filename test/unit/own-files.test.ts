// The build plugin's list of its own files under <publish>/indieauth/ (scripts/own-files.ts): a
// rebuild removes exactly what the plugin wrote before, and anything else there (the blog's, or
// one of the plugin's files changed since) is named, never removed.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { folderState, MANIFEST, recordOurs, removeOurs } from "../../scripts/own-files.ts";

let publish: string;
let folder: string;
beforeEach(() => {
  publish = mkdtempSync(join(tmpdir(), "indieauth-own-"));
  folder = join(publish, "indieauth");
});
afterEach(() => rmSync(publish, { recursive: true, force: true }));

/** Writes the plugin's pages as a build would, and records them. */
async function pluginWrites(pages: Record<string, string>): Promise<string[]> {
  for (const [path, text] of Object.entries(pages)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  return recordOurs(folder);
}

describe("the plugin's own files", () => {
  it("are recorded, and a rebuild removes exactly them (and the folders they leave empty)", async () => {
    expect(
      await pluginWrites({ "index.html": "home", "sign-in/index.html": "sign in", "assets/owner-photo.jpg": "photo" }),
    ).toEqual(["assets/owner-photo.jpg", "index.html", "sign-in/index.html"]);
    writeFileSync(join(publish, "index.html"), "the blog's home page");
    const state = await folderState(publish, folder);
    expect(state).toEqual({ ours: ["assets/owner-photo.jpg", "index.html", "sign-in/index.html"], foreign: [] });
    await removeOurs(folder, state.ours);
    expect(readdirSync(folder)).toEqual([MANIFEST]);
    expect(readFileSync(join(publish, "index.html"), "utf8")).toBe("the blog's home page");
    // The next run writes a different set (no photo now); the one before is gone.
    await pluginWrites({ "index.html": "home 2", "sign-in/index.html": "sign in 2" });
    expect(await folderState(publish, folder)).toEqual({ ours: ["index.html", "sign-in/index.html"], foreign: [] });
  });

  it("name a file the plugin did not write, and one of its own that changed since, as foreign", async () => {
    await pluginWrites({ "index.html": "home", "sign-in/index.html": "sign in" });
    writeFileSync(join(folder, "post.html"), "a post of the blog's");
    writeFileSync(join(folder, "sign-in", "index.html"), "the blog's own page now");
    expect(await folderState(publish, folder)).toEqual({
      ours: ["index.html"],
      foreign: ["indieauth/post.html", "indieauth/sign-in/index.html"],
    });
  });

  it("without a manifest, every file there is foreign (the plugin vouches for nothing it did not list)", async () => {
    mkdirSync(folder);
    writeFileSync(join(folder, "index.html"), "my notes on IndieAuth");
    expect(await folderState(publish, folder)).toEqual({ ours: [], foreign: ["indieauth/index.html"] });
  });

  it("a link in place of the folder, or in it, is foreign: writing there would write through it", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "indieauth-elsewhere-"));
    try {
      symlinkSync(elsewhere, folder);
      expect(await folderState(publish, folder)).toEqual({ ours: [], foreign: ["indieauth"] });
      rmSync(folder);
      await pluginWrites({ "index.html": "home" });
      symlinkSync(elsewhere, join(folder, "assets"));
      expect((await folderState(publish, folder)).foreign).toEqual(["indieauth/assets"]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("nothing there yet: nothing to remove, nothing foreign", async () => {
    expect(await folderState(publish, folder)).toEqual({ ours: [], foreign: [] });
    expect(existsSync(folder)).toBe(false);
  });
});

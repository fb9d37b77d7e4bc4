// What the build plugin wrote under <publish>/indieauth/, so that it never deletes or overwrites
// a file of the blog's. A manifest in that folder lists each file the plugin wrote, with its
// SHA-256: a rebuild removes exactly those (unchanged since), and a file there that the manifest
// does not vouch for (a post of the blog's at /indieauth/…, or one of our pages the blog's build
// since changed) stops the build before anything is touched. In a plain-folder blog the publish
// folder is the blog's source, where a deleted file is lost for good.
import { createHash } from "node:crypto";
import { lstat, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";

/** Dot-named, so that Netlify does not deploy it (it skips dotfiles, as `netlify deploy` does). */
export const MANIFEST = ".netlify-indieauth-manifest.json";

interface Manifest {
  /** Written by this plugin, in its first version with a manifest. */
  version: 1;
  /** Path under the folder (with "/") -> the SHA-256 of what the plugin wrote there, in hex. */
  files: Record<string, string>;
}

export interface FolderState {
  /** The plugin's own files from its previous run, unchanged since. */
  ours: string[];
  /** Everything else there, as paths under the publish folder ("indieauth/post.html"). */
  foreign: string[];
}

async function sha256(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
}

/** Every entry below `dir` that is not a folder (files, links, anything else), as "a/b" paths;
 * a symbolic link is listed, never followed. */
async function entriesUnder(dir: string, under = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(dir, under), { withFileTypes: true })) {
    const path = under === "" ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await entriesUnder(dir, path)));
    else found.push(path);
  }
  return found;
}

async function readManifest(folder: string): Promise<Record<string, string>> {
  try {
    const parsed = JSON.parse(await readFile(join(folder, MANIFEST), "utf8")) as Partial<Manifest>;
    return parsed.version === 1 && parsed.files && typeof parsed.files === "object" ? parsed.files : {};
  } catch {
    return {};
  }
}

/** The files the plugin's last run recorded under `folder`, as "a/b" paths. */
export async function recordedFiles(folder: string): Promise<string[]> {
  return Object.keys(await readManifest(folder)).sort();
}

/** Which files under `folder` (<publish>/indieauth) are the plugin's, and which are not.
 * `publishDir` only names the foreign ones the way a person finds them. */
export async function folderState(publishDir: string, folder: string): Promise<FolderState> {
  const shown = (path: string) => relative(publishDir, join(folder, path)).split(sep).join(posix.sep);
  let stat;
  try {
    stat = await lstat(folder);
  } catch {
    return { ours: [], foreign: [] };
  }
  // A file or a link in its place: writing there would write into whatever it is.
  if (!stat.isDirectory()) return { ours: [], foreign: [shown("")] };
  const manifest = await readManifest(folder);
  const ours: string[] = [];
  const foreign: string[] = [];
  for (const path of await entriesUnder(folder)) {
    if (path === MANIFEST) continue;
    const isFile = (await lstat(join(folder, path))).isFile();
    if (isFile && manifest[path] !== undefined && manifest[path] === (await sha256(join(folder, path))))
      ours.push(path);
    else foreign.push(shown(path));
  }
  return { ours, foreign };
}

/** Removes the plugin's earlier files (only them), and the folders they leave empty. */
export async function removeOurs(folder: string, ours: readonly string[]): Promise<void> {
  for (const path of ours) await rm(join(folder, path), { force: true });
  await pruneEmpty(folder, "");
}

async function pruneEmpty(folder: string, under: string): Promise<void> {
  const dir = join(folder, under);
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries)
    if (entry.isDirectory()) await pruneEmpty(folder, under === "" ? entry.name : `${under}/${entry.name}`);
  if (under !== "" && (await readdir(dir)).length === 0) await rmdir(dir);
}

/** Records every file now under `folder` as the plugin's (call it once the plugin has written its
 * files into a folder that held nothing else); returns their paths. */
export async function recordOurs(folder: string): Promise<string[]> {
  const files: Record<string, string> = {};
  const paths = (await entriesUnder(folder)).filter((path) => path !== MANIFEST).sort();
  for (const path of paths) files[path] = await sha256(join(folder, path));
  const manifest: Manifest = { version: 1, files };
  await writeFile(join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  return paths;
}

// Just enough of the zip format to read what `netlify build` writes (no zip64, stored or
// deflated entries): the listing with sizes, and extraction into a folder.
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { inflateRawSync } from "node:zlib";

export interface ZipEntry {
  name: string;
  /** Uncompressed bytes. */
  size: number;
  compressedSize: number;
  method: number;
  symlink: boolean;
  localHeaderOffset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

function zipEntries(zip: Buffer): ZipEntry[] {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < 0) throw new Error("not a zip file (no end of central directory)");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_HEADER) throw new Error(`bad central directory entry ${i}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const mode = zip.readUInt32LE(at + 38) >>> 16;
    const entry: ZipEntry = {
      name: zip.toString("utf8", at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      symlink: (mode & S_IFMT) === S_IFLNK,
      localHeaderOffset: zip.readUInt32LE(at + 42),
    };
    if (entry.size === 0xffffffff || entry.localHeaderOffset === 0xffffffff)
      throw new Error(`zip64 entry ${entry.name} not supported`);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function entryData(zip: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localHeaderOffset;
  if (zip.readUInt32LE(at) !== LOCAL_HEADER) throw new Error(`bad local header for ${entry.name}`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return raw;
  if (entry.method === 8) return inflateRawSync(raw);
  throw new Error(`${entry.name}: compression method ${entry.method} not supported`);
}

/** Unzips `zipPath` into `into`; returns the listing. */
export async function unzip(zipPath: string, into: string): Promise<ZipEntry[]> {
  const zip = await readFile(zipPath);
  const entries = zipEntries(zip);
  for (const entry of entries) {
    const target = resolve(into, entry.name);
    if (relative(into, target).startsWith("..")) throw new Error(`${entry.name} points outside the folder`);
    if (entry.name.endsWith("/")) {
      await mkdir(target, { recursive: true });
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    const data = entryData(zip, entry);
    if (entry.symlink) await symlink(data.toString("utf8"), target);
    else await writeFile(target, data);
  }
  return entries;
}

// The owner's photo is copied into the site at build time, so that the sign-in and account
// pages load nothing from any other origin (and so stay fast and private). When it cannot be
// fetched (an offline build, a broken link), the pages show no photo and the build says why.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

const TYPES: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};
const MAX_BYTES = 1024 * 1024;
const TIMEOUT_MS = 5000;

type PhotoCopy = { file: string } | { warning: string };

/** Copies the photo into `assetsDir` as owner-photo.<ext>; returns the file name. */
export async function copyOwnerPhoto(url: string, assetsDir: string): Promise<PhotoCopy> {
  const failed = (reason: string): PhotoCopy => ({ warning: `PROFILE_PHOTO (${url}) was not copied into the site: ${reason}. The pages show no photo.` });
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { Accept: Object.keys(TYPES).join(", ") } });
  } catch (error) {
    return failed(error instanceof Error ? error.message : "the fetch failed");
  }
  if (!response.ok) return failed(`HTTP ${response.status}`);
  const type = (response.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  const extension = TYPES[type];
  if (!extension) return failed(`it is ${type || "of no stated type"}, not a JPEG, PNG, GIF, WebP or AVIF image`);
  const body = Buffer.from(await response.arrayBuffer());
  if (body.length > MAX_BYTES) return failed(`it is larger than ${MAX_BYTES / 1024} KB`);
  const file = `owner-photo.${extension}`;
  await writeFile(join(assetsDir, file), body);
  return { file };
}

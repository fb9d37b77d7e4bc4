// The owner's photo is copied into the site at build time, so that the sign-in and account
// pages load nothing from any other origin (and so stay fast and private). When it cannot be
// fetched (an offline build, a broken link), the pages show no photo and the build says why.
// It is fetched like every other URL the server reads: through the address guard (a build
// machine's internal services are no photo), with a time budget and a size limit.
// A photo on the blog being built is read from its publish folder (owner-card.ts, localFile).
import { readFile, stat, writeFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { publicOnlyPolicy, type AddressPolicy } from "../netlify/lib/clients/address-guard.ts";
import { fetchBytes, type FetchedBytes } from "../netlify/lib/clients/safe-fetch.ts";
import { localFile, type LocalSite } from "./owner-card.ts";

const TYPES: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
};
const MAX_BYTES = 1024 * 1024;

type PhotoCopy = { file: string } | { warning: string };

interface PhotoOptions {
  /** Development (netlify dev): the photo may be on localhost, as ME may. */
  development: boolean;
  /** The blog being built, when the server is added to it. */
  site?: LocalSite;
  /** Where the address came from, as the warning names it (PROFILE_PHOTO by default). */
  from?: string;
}

const BY_EXTENSION: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
};

async function photoBytes(url: URL, options: PhotoOptions): Promise<FetchedBytes> {
  const file = localFile(url, options.site);
  if (!file) {
    // As for the self-test's fetch of ME (owner/profile-links.ts): the owner's own setting.
    const policy: AddressPolicy = options.development ? () => true : await publicOnlyPolicy();
    return fetchBytes(url, { policy, maxBytes: MAX_BYTES, accept: Object.keys(TYPES).join(", ") });
  }
  if ((await stat(file)).size > MAX_BYTES) throw new Error(`it is larger than ${MAX_BYTES} bytes`);
  return {
    url: url.href,
    status: 200,
    contentType: BY_EXTENSION[extname(file).toLowerCase()] ?? "",
    linkHeaders: [],
    bytes: await readFile(file),
  };
}

/** Copies the photo into `assetsDir` as owner-photo.<ext>; returns the file name. */
export async function copyOwnerPhoto(url: string, assetsDir: string, options: PhotoOptions): Promise<PhotoCopy> {
  const failed = (reason: string): PhotoCopy => ({
    warning: `${options.from ?? "PROFILE_PHOTO"} (${url}) was not copied into the site: ${reason}. The pages show no photo.`,
  });
  let photo: FetchedBytes;
  try {
    photo = await photoBytes(new URL(url), options);
  } catch (error) {
    return failed(error instanceof Error ? error.message : "the fetch failed");
  }
  const type = photo.contentType.split(";", 1)[0]!.trim().toLowerCase();
  const extension = TYPES[type];
  if (!extension) return failed(`it is ${type || "of no stated type"}, not a JPEG, PNG, GIF, WebP or AVIF image`);
  const file = `owner-photo.${extension}`;
  await writeFile(join(assetsDir, file), photo.bytes);
  return { file };
}

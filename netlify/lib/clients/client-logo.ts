// An app's logo, fetched by this server (never by the owner's browser): through the address
// guard, within the client-fetch budget, at most 64 KB, and only a raster image whose bytes
// are what they claim (PNG, JPEG, GIF, WebP). SVG is refused: it is a document that can hold
// scripts and links, and serving it safely would take a sanitiser.
import type { AddressPolicy } from "./address-guard.ts";
import { fetchBytes } from "./safe-fetch.ts";
import { mediaType } from "../core/media-type.ts";
import { CLIENT_FETCH_BUDGET } from "../core/policy.ts";

const MAX_LOGO_BYTES = 64 * 1024;

/** The types served, each known by its first bytes. */
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** Fetches a logo's bytes (injectable: tests reach their local servers). */
export type LogoFetcher = (url: URL) => Promise<{ contentType: string; bytes: Uint8Array; oversized?: true }>;

export type Logo = { ok: true; type: LogoType; bytes: Uint8Array } | { ok: false; reason: string };

/** The image type the bytes really are, or null. */
function sniffLogoType(bytes: Uint8Array): LogoType | null {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38)) return "image/gif";
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return null;
}

/** The guarded fetch the `auth` function uses (`policy`: public addresses only, unless a test
 * says). Reading stops past 64 KB, and the logo comes back marked oversized. */
export function fetchLogoBytes(url: URL, policy?: AddressPolicy): ReturnType<LogoFetcher> {
  return fetchBytes(url, {
    policy,
    ...CLIENT_FETCH_BUDGET,
    limitFor: () => MAX_LOGO_BYTES,
    accept: LOGO_TYPES.join(", "),
  });
}

/** The logo, or why it is not shown. Never throws. */
export async function readLogo(url: URL, fetcher: LogoFetcher): Promise<Logo> {
  let fetched: Awaited<ReturnType<LogoFetcher>>;
  try {
    fetched = await fetcher(url);
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : "the logo could not be fetched" };
  }
  if (fetched.oversized === true || fetched.bytes.length > MAX_LOGO_BYTES)
    return { ok: false, reason: `the logo is larger than ${MAX_LOGO_BYTES / 1024} KB` };
  const declared = mediaType(fetched.contentType);
  const type = sniffLogoType(fetched.bytes);
  // Both must agree: the declared type from the list, and bytes that are that very type.
  if (!(LOGO_TYPES as readonly string[]).includes(declared))
    return { ok: false, reason: `the logo's type ${declared || "(none)"} is not PNG, JPEG, GIF or WebP` };
  if (type !== declared) return { ok: false, reason: `the logo's bytes are not the ${declared} it was served as` };
  return { ok: true, type, bytes: fetched.bytes };
}

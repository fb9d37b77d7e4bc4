// How long a client's document may be reused, from its response's own caching headers
// (RFC 9111; CIMD draft 5.2, IndieAuth 4.2.1), held within bounds of our own: a client cannot
// make us fetch it on every sign-in, nor keep a stale redirect URI here for days.
import { HOUR, MINUTE } from "../core/time.ts";

/** The response headers that say how long a document stays fresh. */
export interface CachingHeaders {
  cacheControl?: string | undefined;
  expires?: string | undefined;
  date?: string | undefined;
  age?: string | undefined;
}

/** Without caching headers: five minutes. */
export const DEFAULT_LIFETIME_MS = 5 * MINUTE;
/** A fresh document is kept at least this long (fewer fetches, a narrower side channel)... */
export const MIN_LIFETIME_MS = MINUTE;
/** ...and at most this long, so that a changed document is read again within the hour. */
export const MAX_LIFETIME_MS = HOUR;

/** The directives of a Cache-Control header, names lowercased, values unquoted. */
function directives(header: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of header.split(",")) {
    const [rawName, ...rest] = part.split("=");
    const name = rawName?.trim().toLowerCase();
    if (!name || found.has(name)) continue;
    const value = rest.join("=").trim();
    found.set(name, value.replace(/^"(.*)"$/, "$1"));
  }
  return found;
}

function seconds(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,10}$/.test(value) ? Number(value) : null;
}

/** How long the document may be reused, in ms; 0 when it must not be kept at all (no-store,
 * no-cache, or already stale). */
export function cacheLifetimeMs(headers: CachingHeaders, now: number): number {
  const control = directives(headers.cacheControl ?? "");
  // Nothing here revalidates, so no-cache (reuse only after asking again) means not kept.
  if (control.has("no-store") || control.has("no-cache")) return 0;
  let freshMs: number | null = null;
  const maxAge = seconds(control.get("max-age"));
  if (maxAge !== null) {
    freshMs = maxAge * 1000;
  } else if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date !== undefined ? Date.parse(headers.date) : NaN;
    // An unreadable Expires ("0", say) means already expired (RFC 9111 5.3).
    freshMs = Number.isNaN(expires) ? 0 : expires - (Number.isNaN(date) ? now : date);
  }
  if (freshMs === null) return DEFAULT_LIFETIME_MS;
  const remaining = freshMs - (seconds(headers.age) ?? 0) * 1000;
  if (remaining <= 0) return 0;
  return Math.min(MAX_LIFETIME_MS, Math.max(MIN_LIFETIME_MS, remaining));
}

// Fetched logos kept in Blobs a day, whichever function instance serves them (a logo that could
// not be used, ten minutes: a broken one is not fetched on every page view), in 256 slots chosen
// by the URL's hash (platform/records.ts): a flood of apps overwrites slots, never grows the
// store. A cache: when storage does not answer, the logo is fetched as if nothing were kept.
import { createHash } from "node:crypto";
import { DAY, MINUTE } from "../core/time.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { LOGO_TYPES, type Logo, type LogoType } from "./client-logo.ts";

const LOGO_TTL_MS = DAY;
const REFUSED_LOGO_TTL_MS = 10 * MINUTE;

interface ClientLogoRecord {
  kind: "client-logo";
  url: string;
  expiresAt: number;
  /** The image, base64; absent for a refused logo. */
  type?: string;
  data?: string;
  reason?: string;
}

/** The slot of a logo URL: one of 256. */
export function logoSlot(url: string): string {
  return createHash("sha256").update(url, "utf8").digest("hex").slice(0, 2);
}

function fromRecord(record: ClientLogoRecord | null, url: string, now: number): Logo | null {
  if (record?.kind !== "client-logo" || record.url !== url || !(record.expiresAt > now)) return null;
  if (typeof record.data === "string" && (LOGO_TYPES as readonly string[]).includes(record.type ?? "")) {
    return { ok: true, type: record.type as LogoType, bytes: Buffer.from(record.data, "base64") };
  }
  return { ok: false, reason: record.reason ?? "the logo could not be used" };
}

/** The logo at `url`: from the store while it is fresh, else from `read` (then kept). */
export async function cachedLogo(
  store: KeyValueStore,
  url: string,
  now: number,
  read: () => Promise<Logo>,
): Promise<Logo> {
  const key = RECORDS.clientLogo.key(logoSlot(url));
  // Not readable now: fetch it.
  const kept = fromRecord(await store.get<ClientLogoRecord>(key).catch(() => null), url, now);
  if (kept) return kept;
  const logo = await read();
  const record: ClientLogoRecord = logo.ok
    ? {
        kind: "client-logo",
        url,
        expiresAt: now + LOGO_TTL_MS,
        type: logo.type,
        data: Buffer.from(logo.bytes).toString("base64"),
      }
    : { kind: "client-logo", url, expiresAt: now + REFUSED_LOGO_TTL_MS, reason: logo.reason.slice(0, 300) };
  // Not kept: the next view fetches again.
  await store.set(key, record).catch(() => undefined);
  return logo;
}

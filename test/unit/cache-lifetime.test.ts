import { describe, expect, it } from "vitest";
import {
  cacheLifetimeMs,
  DEFAULT_LIFETIME_MS,
  MAX_LIFETIME_MS,
  MIN_LIFETIME_MS,
} from "../../netlify/lib/clients/cache-lifetime.ts";

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const http = (ms: number): string => new Date(ms).toUTCString();

describe("how long a client's document is kept", () => {
  it("keeps it five minutes when the response says nothing", () => {
    expect(cacheLifetimeMs({}, NOW)).toBe(DEFAULT_LIFETIME_MS);
    expect(cacheLifetimeMs({ cacheControl: "public" }, NOW)).toBe(DEFAULT_LIFETIME_MS);
  });

  it("follows max-age, less the Age already spent", () => {
    expect(cacheLifetimeMs({ cacheControl: "public, max-age=600" }, NOW)).toBe(600_000);
    expect(cacheLifetimeMs({ cacheControl: 'max-age="900"' }, NOW)).toBe(900_000);
    expect(cacheLifetimeMs({ cacheControl: "max-age=600", age: "100" }, NOW)).toBe(500_000);
  });

  it("keeps nothing for no-store, no-cache, max-age=0 or a document already stale", () => {
    expect(cacheLifetimeMs({ cacheControl: "no-store" }, NOW)).toBe(0);
    expect(cacheLifetimeMs({ cacheControl: "max-age=600, no-cache" }, NOW)).toBe(0);
    expect(cacheLifetimeMs({ cacheControl: "max-age=0" }, NOW)).toBe(0);
    expect(cacheLifetimeMs({ cacheControl: "max-age=60", age: "60" }, NOW)).toBe(0);
    expect(cacheLifetimeMs({ expires: "0" }, NOW)).toBe(0);
    expect(cacheLifetimeMs({ expires: http(NOW - 1000), date: http(NOW) }, NOW)).toBe(0);
  });

  it("reads Expires against Date (or the clock) when there is no max-age, and max-age wins over it", () => {
    expect(cacheLifetimeMs({ expires: http(NOW + 20 * 60_000), date: http(NOW) }, NOW)).toBe(20 * 60_000);
    expect(cacheLifetimeMs({ expires: http(NOW + 20 * 60_000) }, NOW)).toBe(20 * 60_000);
    expect(cacheLifetimeMs({ cacheControl: "max-age=120", expires: http(NOW + 20 * 60_000) }, NOW)).toBe(120_000);
  });

  it("holds a fresh document between one minute and one hour", () => {
    expect(cacheLifetimeMs({ cacheControl: "max-age=5" }, NOW)).toBe(MIN_LIFETIME_MS);
    expect(cacheLifetimeMs({ cacheControl: "max-age=31536000" }, NOW)).toBe(MAX_LIFETIME_MS);
    expect(MIN_LIFETIME_MS).toBe(60_000);
    expect(MAX_LIFETIME_MS).toBe(3_600_000);
  });

  it("ignores malformed values", () => {
    expect(cacheLifetimeMs({ cacheControl: "max-age=-5" }, NOW)).toBe(DEFAULT_LIFETIME_MS);
    expect(cacheLifetimeMs({ cacheControl: "max-age=1e9" }, NOW)).toBe(DEFAULT_LIFETIME_MS);
    expect(cacheLifetimeMs({ cacheControl: "max-age=600", age: "soon" }, NOW)).toBe(600_000);
  });
});

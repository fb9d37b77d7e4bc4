// A client's public keys for checking its client assertions (RFC 7523): inline from its
// metadata document, or fetched from its jwks_uri through the address guard (https, 32 KB,
// 3 s, no redirect followed) and kept in the store for as long as the answer's caching headers
// say, within a minute and an hour (cache-lifetime.ts). A key the kept set lacks (a rotation)
// makes the caller ask once more with `fresh`.
import { cacheLifetimeMs } from "./cache-lifetime.ts";
import type { ClientKeySource } from "../core/client-shape.ts";
import { publicKeySet } from "./client-keys.ts";
import { fetchDocument, FetchFailed, FetchRefused, shareableReason } from "./safe-fetch.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyFetcher } from "../platform/runtime.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { MAX_JWKS_BYTES } from "../core/policy.ts";
import { jsonOf } from "../core/json.ts";
import { MINUTE } from "../core/time.ts";

export type JsonWebKeySet = { keys: Record<string, unknown>[] };

interface StoredKeys {
  jwksUri: string;
  keys: Record<string, unknown>[];
  fetchedAt: number;
  expiresAt: number;
}

/** Why a client's keys could not be had: the client's problem, told to it as invalid_client. */
export class ClientKeysUnavailable extends Error {
  override name = "ClientKeysUnavailable";
}

const defaultFetcher: KeyFetcher = (url) =>
  fetchDocument(url, {
    maxBytes: MAX_JWKS_BYTES,
    maxRedirects: 0,
    timeoutMs: 3000,
    accept: "application/jwk-set+json, application/json",
  });

async function fetchKeys(jwksUri: string, fetcher: KeyFetcher, now: number): Promise<StoredKeys> {
  const doc = await fetcher(new URL(jwksUri)).catch((error: unknown) => {
    // In words that name no address and no system error: they go back to whoever asked.
    if (error instanceof FetchRefused || error instanceof FetchFailed)
      throw new ClientKeysUnavailable(`its jwks_uri could not be fetched (${shareableReason(error)})`);
    throw error;
  });
  if (doc.status !== 200) throw new ClientKeysUnavailable(`its jwks_uri answered ${doc.status}`);
  if (Buffer.byteLength(doc.body, "utf8") > MAX_JWKS_BYTES)
    throw new ClientKeysUnavailable(`its jwks_uri serves more than ${MAX_JWKS_BYTES / 1024} KB`);
  const lifetime = cacheLifetimeMs(doc.caching ?? {}, now);
  const json = jsonOf(doc.body);
  if (json === undefined) throw new ClientKeysUnavailable("its jwks_uri does not serve JSON");
  const set = publicKeySet(json);
  if (typeof set === "string") throw new ClientKeysUnavailable(`the keys at its jwks_uri cannot be used: ${set}`);
  // Kept at least a minute even when the answer says no-store: a burst of token requests
  // fetches once. A new key is still found at once, through `fresh`.
  return { jwksUri, keys: set.keys, fetchedAt: now, expiresAt: now + Math.max(lifetime, MINUTE) };
}

interface KeyOptions {
  store: KeyValueStore;
  now: number;
  fetcher?: KeyFetcher | undefined;
  /** Fetch again whatever is kept (the assertion names a key the kept set lacks). */
  fresh?: boolean;
}

/** The client's public keys; throws ClientKeysUnavailable when they cannot be had. */
export async function clientKeySet(source: ClientKeySource, options: KeyOptions): Promise<JsonWebKeySet> {
  if ("jwks" in source) return source.jwks;
  const key = RECORDS.clientKeys.key(source.jwksUri);
  if (options.fresh !== true) {
    const kept = await options.store.get<StoredKeys>(key);
    if (kept !== null && kept.jwksUri === source.jwksUri && kept.expiresAt > options.now && Array.isArray(kept.keys))
      return { keys: kept.keys };
  }
  const fetched = await fetchKeys(source.jwksUri, options.fetcher ?? defaultFetcher, options.now);
  await options.store.set(key, fetched);
  return { keys: fetched.keys };
}

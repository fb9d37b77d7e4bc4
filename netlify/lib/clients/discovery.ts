// Client information discovery (IndieAuth 4.2): fetch the client_id URL behind the SSRF
// guard, within a short budget (its answer's headers within 1.5 s, all of it within 3 s: a
// person is waiting on GET /auth), read it, and remember the answer per warm function
// instance for as long as the response's caching headers say, within bounds
// (cache-lifetime.ts). Refused documents are not remembered (CIMD draft 5.2); a failed fetch
// is, per origin, for a minute (fetch-failures.ts).
import { publicOnlyPolicy } from "./address-guard.ts";
import { cacheLifetimeMs } from "./cache-lifetime.ts";
import type { FetchFailures } from "./fetch-failures.ts";
import { MAX_METADATA_DOCUMENT_BYTES, parseClientDocument, refusedClient } from "./client-info.ts";
import type { ClientInfo } from "../core/client-shape.ts";
import type { AddressPolicy } from "./address-guard.ts";
import { fetchDocument, type FetchedDocument, type Fetcher } from "./safe-fetch.ts";
import { isLoopbackHost } from "../core/urls.ts";

interface DiscoveryOptions {
  fetcher?: Fetcher;
  now?: () => number;
  /** How long a fetched result is reused; by default, what its caching headers say. */
  cacheMs?: number;
  /** Where failed fetches are remembered; without it, nothing is. */
  failures?: FetchFailures;
}

/** The fetch's budget: a page that trickles its answer holds a sign-in at most this long. */
export const CLIENT_FETCH_BUDGET = { headersTimeoutMs: 1500, timeoutMs: 3000 } as const;

// A bound, so that many distinct client_ids cannot grow memory without limit.
const MAX_CACHE_ENTRIES = 100;

const cache = new Map<string, { info: ClientInfo; expires: number }>();

/** How much of a client_id's answer is read: an HTML page (or an answer with no type, read as
 * one) up to the fetch's own limit; anything else can only be a metadata document, read up to
 * 5 KB and no further (client-info.ts refuses it then, saying why). */
export function documentByteLimit(contentType: string): number {
  const type = (contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
  return type === "" || type === "text/html" || type === "application/xhtml+xml" ? Infinity : MAX_METADATA_DOCUMENT_BYTES;
}

/** A client_id fetched as discovery fetches it: within the budget, a metadata document read up
 * to 5 KB and no further (client-info.ts). `policy`: public addresses only, unless a test says. */
export async function fetchClientDocument(url: URL, policy?: AddressPolicy): Promise<FetchedDocument> {
  return fetchDocument(url, { policy: policy ?? (await publicOnlyPolicy()), ...CLIENT_FETCH_BUDGET, limitFor: documentByteLimit });
}

const defaultFetcher: Fetcher = (url) => fetchClientDocument(url);

/** For tests: forget every cached client. */
export function clearClientCache(): void {
  cache.clear();
}

function remember(key: string, info: ClientInfo, expires: number): void {
  cache.delete(key);
  // Map keeps insertion order, so the first key is the oldest entry.
  while (cache.size >= MAX_CACHE_ENTRIES) {
    const oldest = cache.keys().next();
    if (oldest.done === true) break;
    cache.delete(oldest.value);
  }
  cache.set(key, { info, expires });
}

/** Information about a client. Never throws: when the client_id cannot or must not be
 * fetched, the result is `{ clientId, redirectUris: [], fetched: false }`. */
export async function discoverClient(clientId: URL, options: DiscoveryOptions = {}): Promise<ClientInfo> {
  const bare: ClientInfo = { clientId: clientId.href, redirectUris: [], fetched: false };
  // Spec 4.2: a loopback client_id MUST NOT be fetched. (A domain name that resolves to
  // loopback is refused later by the address guard.)
  if (isLoopbackHost(clientId.hostname)) return bare;

  const now = options.now ?? Date.now;
  const key = clientId.href;
  const hit = cache.get(key);
  if (hit !== undefined && hit.expires > now()) return hit.info;
  if (hit !== undefined) cache.delete(key);

  // Failed within the last minute (this path or another of its origin): not tried again yet.
  if (await options.failures?.failedRecently(clientId.origin, now())) return bare;
  const fetcher = options.fetcher ?? defaultFetcher;
  try {
    const doc = await fetcher(clientId);
    // Only the client's own origin speaks for it: a redirect elsewhere (an open redirect on
    // its site, say) must not let another site's document publish redirect URIs.
    const info =
      new URL(doc.url).origin === clientId.origin ? await parseClientDocument(doc, clientId.href) : refusedClient(clientId.href, "its address redirects to another site");
    if (info.refused !== undefined) return info;
    const lifetime = options.cacheMs ?? cacheLifetimeMs(doc.caching ?? {}, now());
    if (lifetime > 0) remember(key, info, now() + lifetime);
    return info;
  } catch {
    // Refused (SSRF guard, size, redirects) or failed (network, timeout, status): the
    // authorization can still go on with same-origin redirect URIs only. Remembered for a
    // minute for the whole origin, so that a slow page cannot hold every sign-in naming it.
    await options.failures?.remember(clientId.origin, now());
    return bare;
  }
}

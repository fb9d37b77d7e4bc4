// Client information discovery (IndieAuth 4.2): the client_id URL fetched behind the SSRF guard
// within the client-fetch budget (a person is waiting on GET /auth), read, and remembered per warm
// function instance as its caching headers say, within bounds (cache-lifetime.ts); refused
// documents are not remembered (CIMD draft 5.2); slow pages: fetch-failures.ts. An https client_id
// whose document could not be read comes back `unread`, so that a failure to read it never makes
// the client weaker than its document (protocol/unread-document.ts). See docs/security.md.
import type { AddressPolicy } from "./address-guard.ts";
import { cacheLifetimeMs } from "./cache-lifetime.ts";
import type { FetchFailures } from "./fetch-failures.ts";
import { isHtmlType, parseClientDocument, refusedClient } from "./client-info.ts";
import type { ClientInfo } from "../core/client-shape.ts";
import {
  AddressRefused,
  fetchDocument,
  FetchFailed,
  FetchRefused,
  FetchTimedOut,
  type FetchBudget,
  type FetchedDocument,
  type Fetcher,
} from "./safe-fetch.ts";
import { isLoopbackHost } from "../core/urls.ts";
import { setBounded } from "../core/bounded-map.ts";
import { CLIENT_FETCH_BUDGET, MAX_METADATA_DOCUMENT_BYTES, SHORT_FETCH_BUDGET } from "../core/policy.ts";

interface DiscoveryOptions {
  fetcher?: Fetcher;
  now?: () => number;
  /** How long a fetched result is reused; by default, what its caching headers say. */
  cacheMs?: number;
  /** Where slow pages are remembered and each registrable domain's budget is decided
   * (fetch-failures.ts); without it, nothing is remembered and every fetch has the whole budget. */
  failures?: FetchFailures;
}

/** Statuses that say the client_id has no document at all, rather than that it could not be read. */
const NO_DOCUMENT_STATUSES = new Set([404, 410]);

// A bound, so that many distinct client_ids cannot grow memory without limit.
const MAX_CACHE_ENTRIES = 100;

const cache = new Map<string, { info: ClientInfo; expires: number }>();

/** How much of a client_id's answer is read: an HTML page up to the fetch's own limit; anything
 * else can only be a metadata document, read up to 5 KB and no further (client-info.ts refuses
 * it then, saying why). */
const documentByteLimit = (contentType: string) => (isHtmlType(contentType) ? Infinity : MAX_METADATA_DOCUMENT_BYTES);

/** A client_id fetched as discovery fetches it (`policy`: public addresses only, unless a test says). */
export function fetchClientDocument(
  url: URL,
  policy?: AddressPolicy,
  budget: FetchBudget = CLIENT_FETCH_BUDGET,
): Promise<FetchedDocument> {
  return fetchDocument(url, { policy, ...budget, limitFor: documentByteLimit });
}

const defaultFetcher: Fetcher = (url, budget) => fetchClientDocument(url, undefined, budget);

/** For tests: forget every cached client. */
export function clearClientCache(): void {
  cache.clear();
}

/** What a failed fetch leaves known: that there is no document to read (404, 410, or an answer
 * the size and redirect rules refuse: a bare client), or nothing (`unread`, for an https
 * client_id, the only kind whose document can declare how the client authenticates). A name the
 * address guard refuses is unread too: whoever asked must not learn from the signed request
 * that the name resolves to an internal address rather than to nothing. */
function afterFailure(clientId: URL, error: unknown): ClientInfo {
  const bare: ClientInfo = { clientId: clientId.href, redirectUris: [], fetched: false };
  const answered = error instanceof FetchRefused && !(error instanceof AddressRefused);
  const noDocument = answered || (error instanceof FetchFailed && NO_DOCUMENT_STATUSES.has(error.status ?? 0));
  return noDocument || clientId.protocol !== "https:" ? bare : { ...bare, unread: true };
}

/** Information about a client. Never throws: when the client_id cannot or must not be
 * fetched, the result is `{ clientId, redirectUris: [], fetched: false }`, with `unread` when
 * its document may exist but could not be read. */
export async function discoverClient(clientId: URL, options: DiscoveryOptions = {}): Promise<ClientInfo> {
  // Spec 4.2: a loopback client_id MUST NOT be fetched. (A domain name that resolves to
  // loopback is refused later by the address guard.)
  if (isLoopbackHost(clientId.hostname)) return { clientId: clientId.href, redirectUris: [], fetched: false };

  const now = options.now ?? Date.now;
  const key = clientId.href;
  const hit = cache.get(key);
  if (hit !== undefined && hit.expires > now()) return hit.info;
  if (hit !== undefined) cache.delete(key);

  const memory = await options.failures?.recall(clientId, now());
  // Too slow within the last minute (this very client_id): not tried again yet.
  if (memory?.slowRecently === true) return afterFailure(clientId, new FetchTimedOut("too slow a minute ago"));
  const fetcher = options.fetcher ?? defaultFetcher;
  const started = performance.now();
  try {
    const doc = await fetcher(clientId, memory?.domainBusy === true ? SHORT_FETCH_BUDGET : CLIENT_FETCH_BUDGET);
    // Only the client's own origin speaks for it: a redirect elsewhere (an open redirect on
    // its site, say) must not let another site's document publish redirect URIs.
    const info =
      new URL(doc.url).origin === clientId.origin
        ? await parseClientDocument(doc, clientId.href)
        : refusedClient(clientId.href, "its address redirects to another site");
    if (info.refused !== undefined) return info;
    const lifetime = options.cacheMs ?? cacheLifetimeMs(doc.caching ?? {}, now());
    if (lifetime > 0) setBounded(cache, key, { info, expires: now() + lifetime }, MAX_CACHE_ENTRIES);
    return info;
  } catch (error) {
    // Refused (SSRF guard, size, redirects) or failed (network, timeout, status): the
    // authorization can still go on with same-origin redirect URIs only. Only slowness is
    // remembered: it is what holds a person waiting.
    if (error instanceof FetchTimedOut || performance.now() - started > SHORT_FETCH_BUDGET.timeoutMs)
      await memory?.rememberSlow(now());
    return afterFailure(clientId, error);
  }
}

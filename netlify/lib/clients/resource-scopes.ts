// The scopes a protected resource lists in its own RFC 9728 metadata (`scopes_supported`), read when
// an authorization request names the resource but no scope (protocol/resource-default-scopes.ts
// decides when). Fetched behind the address guard within the client-fetch budget (a person is
// waiting on GET /auth), and remembered per warm function instance for a minute, found or not.
import { loopbackOnlyPolicy, publicOnlyPolicy } from "./address-guard.ts";
import { fetchDocument, shareableReason, type Fetcher } from "./safe-fetch.ts";
import { setBounded } from "../core/bounded-map.ts";
import { CLIENT_FETCH_BUDGET } from "../core/policy.ts";
import { jsonOf } from "../core/json.ts";
import { resourceMetadataUrl } from "../core/resource-metadata-url.ts";
import { MINUTE } from "../core/time.ts";

/** The scopes found, or why there are none (said to the app's developer). */
export type ResourceScopes = { scopes: string[] } | { missing: string };

interface LookupOptions {
  /** Local development with the owner's site on this machine (ME is http only there): the
   * guard lets this machine's own addresses through, and nothing else. */
  localDevelopment?: boolean;
  fetcher?: Fetcher;
  now?: () => number;
}

const CACHE_MS = MINUTE;
const MAX_CACHE_ENTRIES = 50;
const MAX_SCOPES = 32;
/** scope-token (RFC 6749 3.3), as protocol/scopes.ts reads it. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

const cache = new Map<string, { answer: ResourceScopes; expires: number }>();

const guardedFetcher =
  (localDevelopment: boolean): Fetcher =>
  async (url) =>
    fetchDocument(url, {
      policy: localDevelopment ? loopbackOnlyPolicy : await publicOnlyPolicy(),
      ...CLIENT_FETCH_BUDGET,
      maxBytes: 64 * 1024,
      maxRedirects: 0,
      accept: "application/json",
    });

/** The scopes a metadata document lists for exactly this resource (RFC 9728 3.3: a document
 * naming another resource is not this one's). offline_access is the app's wish, not a scope of
 * the resource's, and is left out. */
export function scopesOfMetadata(body: string, resource: string): ResourceScopes {
  const doc = jsonOf(body);
  if (doc === undefined) return { missing: "its metadata is not JSON" };
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    return { missing: "its metadata is not a JSON object" };
  const { resource: named, scopes_supported: listed } = doc as Record<string, unknown>;
  if (named !== resource)
    return { missing: `its metadata names the resource ${JSON.stringify(named)}, not ${resource}` };
  if (!Array.isArray(listed)) return { missing: "its metadata has no scopes_supported" };
  const scopes = [
    ...new Set(
      listed.filter((s): s is string => typeof s === "string" && SCOPE_TOKEN.test(s) && s !== "offline_access"),
    ),
  ].slice(0, MAX_SCOPES);
  return scopes.length > 0 ? { scopes } : { missing: "its metadata lists no scopes in scopes_supported" };
}

/** The resource's default scopes from its metadata, or why there are none. Never throws. */
export async function lookUpResourceScopes(resource: string, options: LookupOptions = {}): Promise<ResourceScopes> {
  const now = options.now ?? Date.now;
  const url = new URL(resourceMetadataUrl(new URL(resource)));
  const hit = cache.get(url.href);
  if (hit && hit.expires > now()) return hit.answer;
  let answer: ResourceScopes;
  try {
    const doc = await (options.fetcher ?? guardedFetcher(options.localDevelopment === true))(url);
    answer = doc.redirected ? { missing: `${url.href} redirects elsewhere` } : scopesOfMetadata(doc.body, resource);
  } catch (error) {
    // Said to the app that asked: a status or slowness, never an address or a system error.
    answer = { missing: `its metadata could not be read (${shareableReason(error)})` };
  }
  setBounded(cache, url.href, { answer, expires: now() + CACHE_MS }, MAX_CACHE_ENTRIES);
  return answer;
}

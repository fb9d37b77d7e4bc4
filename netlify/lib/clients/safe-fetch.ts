// Fetching a client_id URL without letting it reach internal services (SSRF), with hard
// limits on time, size and redirects. node:http is used instead of fetch() because only it
// lets us choose the address the socket connects to: the addresses are resolved once, every
// one is checked against the policy, and the connection is handed exactly those addresses,
// so a DNS answer that changes between check and connect (rebinding) cannot slip through.
import type { LookupAddress, LookupOptions } from "node:dns";
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from "node:http";
import type { LookupFunction } from "node:net";
import { ipLiteralOf, publicOnlyPolicy, type AddressPolicy } from "./address-guard.ts";
import type { CachingHeaders } from "./cache-lifetime.ts";
import { AddressRefused, FetchFailed, FetchRefused, FetchTimedOut } from "./fetch-errors.ts";

export interface FetchedDocument {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string;
  /** Every `Link` response header, one entry per header line. */
  linkHeaders: string[];
  body: string;
  /** Whether a redirect was followed to reach it (a Client ID Metadata Document must not be). */
  redirected?: boolean;
  caching?: CachingHeaders;
  /** The body went past the cap `limitFor` set for its type: reading stopped there. */
  oversized?: true;
}

export { AddressRefused, FetchFailed, FetchRefused, FetchTimedOut, shareableReason } from "./fetch-errors.ts";

/** How long a fetch may take: its answer's headers, and all of it. */
export interface FetchBudget {
  headersTimeoutMs: number;
  timeoutMs: number;
}

interface FetchOptions {
  /** By default, public addresses only. */
  policy?: AddressPolicy;
  /** One budget for the whole fetch, redirects included. */
  timeoutMs?: number;
  /** Each request's budget for the answer's status and headers to arrive (a server that
   * trickles them is dropped early); by default the whole budget. */
  headersTimeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  accept?: string;
  /** A smaller cap for an answer of this content type (a metadata document's 5 KB, say): past
   * it reading stops, and the document comes back marked `oversized` (not an error, so that
   * the caller can say why it refuses it). */
  limitFor?: (contentType: string) => number;
}

/** A fetched document's bytes, undecoded (an image, say). */
export type FetchedBytes = Omit<FetchedDocument, "body"> & { bytes: Buffer };

/** What discovery needs; injectable so tests can reach their local servers. `budget`: the
 * time discovery gives this fetch (a fetcher without it uses its own). */
export type Fetcher = (url: URL, budget?: FetchBudget) => Promise<FetchedDocument>;

const DEFAULTS = {
  timeoutMs: 5000,
  maxBytes: 512 * 1024,
  maxRedirects: 3,
  accept: "application/json, text/html;q=0.9",
  limitFor: () => Infinity,
} satisfies Omit<Required<FetchOptions>, "policy" | "headersTimeoutMs">;

/** node:http, node:https and node:dns, loaded by name on the first fetch: they stay out of a
 * function's cold start (only GET /auth and the self-test fetch anything). */
export async function loadNetwork() {
  const [{ default: http }, { default: https }, { lookup }] = await Promise.all([
    import("node:http"),
    import("node:https"),
    import("node:dns"),
  ]);
  return { http, https, lookup };
}
type Network = Awaited<ReturnType<typeof loadNetwork>>;

const USER_AGENT = "netlify-indieauth (client discovery)";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A `lookup` for net.connect that refuses the host if ANY of its addresses fails the policy
 * (an attacker could otherwise list a public and a private address together). */
function guardedLookup(policy: AddressPolicy, dnsLookup: Network["lookup"]): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    dnsLookup(hostname, { all: true, family }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      if (addresses.length === 0) return callback(new FetchFailed(`${hostname} has no addresses`), []);
      const refused = addresses.find((a) => !policy(a.address));
      if (refused)
        return callback(new AddressRefused(`${hostname} resolves to ${refused.address}, which is not allowed`), []);
      // Hand back exactly the checked addresses; never resolve again.
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

type Hop = { redirect: URL } | { document: FetchedBytes };

/** A request for `url` alone (no redirect followed) that connects only where `policy` allows.
 * Throws FetchRefused for a scheme other than http(s), AddressRefused for a refused IP literal. */
export function guardedRequest(
  url: URL,
  policy: AddressPolicy,
  network: Network,
  init: { method: string; headers: OutgoingHttpHeaders },
): ClientRequest {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new FetchRefused(`the ${url.protocol} scheme is not allowed`);
  // net.connect skips `lookup` for IP literals, so those are checked here.
  const literal = ipLiteralOf(url.hostname);
  if (literal !== null && !policy(literal)) throw new AddressRefused(`the address ${literal} is not allowed`);
  const transport = url.protocol === "https:" ? network.https : network.http;
  // Built field by field so that userinfo in the URL is never sent as Basic auth.
  return transport.request({
    protocol: url.protocol,
    hostname: literal ?? url.hostname,
    port: url.port === "" ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    ...init,
    // A fresh socket per request: no pooled connection to a previously resolved address.
    agent: false,
    lookup: guardedLookup(policy, network.lookup),
  });
}

/** One request, no redirect following. Rejects with FetchRefused or FetchFailed only. */
async function requestOnce(
  url: URL,
  opts: Required<FetchOptions>,
  network: Network,
  signal: AbortSignal,
): Promise<Hop> {
  if (signal.aborted) throw new FetchTimedOut("timed out");
  const req = guardedRequest(url, opts.policy, network, {
    method: "GET",
    headers: { Accept: opts.accept, "User-Agent": USER_AGENT, "Accept-Encoding": "identity" },
  });
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: { hop: Hop } | { error: Error }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(headersTimer);
      signal.removeEventListener("abort", onAbort);
      if ("hop" in outcome) {
        resolve(outcome.hop);
      } else {
        req.destroy();
        reject(outcome.error);
      }
    };
    const onAbort = (): void => finish({ error: new FetchTimedOut(`took longer than ${opts.timeoutMs} ms`) });
    signal.addEventListener("abort", onAbort, { once: true });
    const headersTimer = setTimeout(
      () => finish({ error: new FetchTimedOut(`${url.host} sent no answer within ${opts.headersTimeoutMs} ms`) }),
      opts.headersTimeoutMs,
    );

    req.on("error", (err) => {
      finish({
        error:
          err instanceof FetchRefused || err instanceof FetchFailed
            ? err
            : new FetchFailed(`could not fetch ${url.href}: ${err.message}`),
      });
    });
    req.on("response", (res) => {
      clearTimeout(headersTimer);
      handleResponse(url, res, opts, finish);
    });
    req.end();
  });
}

function handleResponse(
  url: URL,
  res: IncomingMessage,
  opts: Required<FetchOptions>,
  finish: (outcome: { hop: Hop } | { error: Error }) => void,
): void {
  const status = res.statusCode ?? 0;
  if (REDIRECT_STATUSES.has(status)) {
    const location = res.headers.location;
    if (location === undefined) return finish({ error: new FetchFailed(`redirect ${status} without a Location`) });
    try {
      finish({ hop: { redirect: new URL(location, url) } });
    } catch {
      finish({ error: new FetchFailed(`redirect to an invalid URL`) });
    }
    res.destroy();
    return;
  }
  if (status < 200 || status > 299) return finish({ error: new FetchFailed(`${url.href} answered ${status}`, status) });

  const contentType = res.headers["content-type"] ?? "";
  const document = (bytes: Buffer, oversized: boolean): Hop => ({
    document: {
      url: url.href,
      status,
      contentType,
      linkHeaders: res.headersDistinct.link ?? [],
      caching: {
        cacheControl: res.headers["cache-control"],
        expires: res.headers.expires,
        date: res.headers.date,
        age: res.headers.age,
      },
      bytes,
      ...(oversized ? { oversized: true as const } : {}),
    },
  });
  // Past the type's own cap: what was read so far, marked, and the rest never read.
  const typeLimit = opts.limitFor(contentType);
  const stopAtTypeLimit = (bytes: Buffer): void => {
    finish({ hop: document(bytes, true) });
    res.destroy();
  };

  const declared = Number(res.headers["content-length"] ?? NaN);
  if (Number.isFinite(declared) && declared > typeLimit) return stopAtTypeLimit(Buffer.alloc(0));
  if (Number.isFinite(declared) && declared > opts.maxBytes) {
    return finish({ error: new FetchRefused(`the document is larger than ${opts.maxBytes} bytes`) });
  }

  const chunks: Buffer[] = [];
  let size = 0;
  res.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > typeLimit) return stopAtTypeLimit(Buffer.concat([...chunks, chunk]).subarray(0, typeLimit + 1));
    if (size > opts.maxBytes)
      return finish({ error: new FetchRefused(`the document is larger than ${opts.maxBytes} bytes`) });
    chunks.push(chunk);
  });
  res.on("end", () => finish({ hop: document(Buffer.concat(chunks), false) }));
  res.on("error", (err) => finish({ error: new FetchFailed(`reading ${url.href} failed: ${err.message}`) }));
  // A connection closed before the end of the body (finish ignores this after "end").
  res.on("close", () => finish({ error: new FetchFailed(`${url.href} closed the connection early`) }));
}

/** GET a URL's bytes with the SSRF guard, a time budget, a size cap and few redirects. */
export async function fetchBytes(url: URL, options: FetchOptions = {}): Promise<FetchedBytes> {
  const opts: Required<FetchOptions> = {
    policy: options.policy ?? (await publicOnlyPolicy()),
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    headersTimeoutMs: options.headersTimeoutMs ?? options.timeoutMs ?? DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
    maxRedirects: options.maxRedirects ?? DEFAULTS.maxRedirects,
    accept: options.accept ?? DEFAULTS.accept,
    limitFor: options.limitFor ?? DEFAULTS.limitFor,
  };
  const network = await loadNetwork();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    let current = url;
    for (let redirects = 0; ; redirects++) {
      const hop = await requestOnce(current, opts, network, controller.signal);
      if ("document" in hop) return { ...hop.document, redirected: redirects > 0 };
      if (redirects >= opts.maxRedirects) throw new FetchRefused(`more than ${opts.maxRedirects} redirects`);
      // The next hop's scheme and address are checked again in requestOnce.
      current = hop.redirect;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** GET a client document (as text), as fetchBytes does. */
export async function fetchDocument(url: URL, options: FetchOptions = {}): Promise<FetchedDocument> {
  const { bytes, ...fetched } = await fetchBytes(url, options);
  // Non-fatal decoding: malformed bytes become U+FFFD instead of failing.
  return { ...fetched, body: new TextDecoder("utf-8").decode(bytes) };
}

// What every endpoint needs, injected so that tests can pass a clock, a store of their own
// and a client fetcher that reaches their local servers. The functions use `defaultRuntime()`,
// with the capabilities each is built with.
import type { ClientInfo } from "../core/client-shape.ts";
import { getConfig, type ConfigResult } from "./config.ts";
import { blobStore, type KeyValueStore } from "./store.ts";

/** What only some functions are built with, each passing those its endpoint needs (http/function-
 * adapter.ts): the fetcher, its address guard and the HTML parser would otherwise ship in every function. */
export interface Capabilities {
  /** Client discovery (`auth`; `token`, to redeem a code issued while a document could not be read).
   * `store`: where discovery may remember what failed. `atRedemption`: the document is fetched
   * whatever was remembered (protocol/unread-document.ts). */
  discover: (clientId: URL, store: KeyValueStore, options?: { atRedemption?: boolean }) => Promise<ClientInfo>;
  /** Fetches an app's logo through the address guard (clients/client-logo.ts): the `auth` function. */
  fetchLogo: (url: URL) => Promise<{ contentType: string; bytes: Uint8Array; oversized?: true }>;
  /** The scopes a resource lists in its RFC 9728 metadata, or why none (clients/resource-
   * scopes.ts): the `auth` function. */
  resourceScopes: (
    resource: string,
    options?: { localDevelopment?: boolean },
  ) => Promise<{ scopes: string[] } | { missing: string }>;
}

export type Capability = keyof Capabilities;

/** What every endpoint has, and the capabilities `C` its function is built with (`Runtime<"discover">`). */
export type Runtime<C extends Capability = never> = {
  config: ConfigResult;
  store: KeyValueStore;
  now: () => number;
  /** Fetches a client's jwks_uri (tests reach their local servers); by default, through the
   * address guard (clients/jwks.ts). */
  fetchKeys?: KeyFetcher;
} & Pick<Capabilities, C>;

/** What reading a client's JWK Set needs of a fetch (clients/safe-fetch.ts's documents have it). */
export type KeyFetcher = (url: URL) => Promise<{
  status: number;
  body: string;
  caching?: {
    cacheControl?: string | undefined;
    expires?: string | undefined;
    date?: string | undefined;
    age?: string | undefined;
  };
}>;

let runtime: Runtime | undefined;

export function defaultRuntime(): Runtime {
  runtime ??= {
    config: getConfig(),
    // INDIEAUTH_STORE: another store name lets two servers (or test runs) share one site.
    store: blobStore(process.env.INDIEAUTH_STORE?.trim() || undefined),
    now: Date.now,
  };
  return runtime;
}

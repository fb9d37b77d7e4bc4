// What every endpoint needs, injected so that tests can pass a clock, a store of their own
// and a client fetcher that reaches their local servers. The functions use `defaultRuntime()`.
import type { ClientInfo } from "../core/client-shape.ts";
import { getConfig, type ConfigResult } from "./config.ts";
import { blobStore, type KeyValueStore } from "./store.ts";

export interface Runtime {
  config: ConfigResult;
  store: KeyValueStore;
  now: () => number;
  /** `store`: where discovery may remember what failed (the runtime's own). `atRedemption`: a
   * code whose client's document could not be read at sign-in is being redeemed, so the
   * document is fetched whatever was remembered (protocol/unread-document.ts). */
  discover: (clientId: URL, store: KeyValueStore, options?: { atRedemption?: boolean }) => Promise<ClientInfo>;
  /** Fetches a client's jwks_uri (tests reach their local servers); by default, through the
   * address guard (clients/jwks.ts). */
  fetchKeys?: KeyFetcher;
  /** Fetches an app's logo through the address guard (clients/client-logo.ts): only the `auth`
   * function has it. */
  fetchLogo?: (url: URL) => Promise<{ contentType: string; bytes: Uint8Array; oversized?: true }>;
  /** The scopes a resource lists in its RFC 9728 metadata, or why none (clients/resource-
   * scopes.ts); only the `auth` function has it. */
  resourceScopes?: (resource: string, options?: { localDevelopment?: boolean }) => Promise<{ scopes: string[] } | { missing: string }>;
}

/** What reading a client's JWK Set needs of a fetch (clients/safe-fetch.ts's documents have it). */
export type KeyFetcher = (url: URL) => Promise<{
  status: number;
  body: string;
  caching?: { cacheControl?: string | undefined; expires?: string | undefined; date?: string | undefined; age?: string | undefined };
}>;

let runtime: Runtime | undefined;

/** Client discovery is not shared: only the `auth` and `token` functions discover clients
 * (the latter only to redeem a code issued while a document could not be read), and they pass
 * their own (see http/function-adapter.ts). The fetcher, its address guard and the HTML parser
 * would otherwise ship in every function. */
async function noDiscovery(): Promise<never> {
  throw new Error("This function does not discover clients.");
}

export function defaultRuntime(): Runtime {
  runtime ??= {
    config: getConfig(),
    // INDIEAUTH_STORE: another store name lets two servers (or test runs) share one site.
    store: blobStore(process.env.INDIEAUTH_STORE?.trim() || undefined),
    now: Date.now,
    discover: noDiscovery,
  };
  return runtime;
}

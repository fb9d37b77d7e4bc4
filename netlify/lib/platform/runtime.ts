// What every endpoint needs, injected so that tests can pass a clock, a store of their own
// and a client fetcher that reaches their local servers. The functions use `defaultRuntime()`.
import type { ClientInfo } from "../clients/client-info.ts";
import { getConfig, type ConfigResult } from "./config.ts";
import { blobStore, type KeyValueStore } from "./store.ts";

export interface Runtime {
  config: ConfigResult;
  store: KeyValueStore;
  now: () => number;
  discover: (clientId: URL) => Promise<ClientInfo>;
}

let runtime: Runtime | undefined;

export function defaultRuntime(): Runtime {
  runtime ??= {
    config: getConfig(),
    // INDIEAUTH_STORE: another store name lets two servers (or test runs) share one site.
    store: blobStore(process.env.INDIEAUTH_STORE?.trim() || undefined),
    now: Date.now,
    // Loaded on first use: only GET /auth discovers clients, and the fetcher, its address guard
    // and the HTML parser would otherwise weigh on every function's cold start.
    discover: async (clientId) => (await import("../clients/discovery.ts")).discoverClient(clientId),
  };
  return runtime;
}

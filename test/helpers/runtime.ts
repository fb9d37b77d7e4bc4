// A Runtime for in-process handler tests and the bench: the run's Blobs (the real local server,
// or the production double; a store of the caller's own, or a double of its own given by
// `connection`), an injectable clock, and client discovery that the caller controls. No vitest here.
import { randomUUID } from "node:crypto";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { isLoopbackHost } from "../../netlify/lib/core/urls.ts";
import { loadConfig, type Env } from "../../netlify/lib/platform/config.ts";
import type { Capability, Runtime } from "../../netlify/lib/platform/runtime.ts";
import type { Build } from "../../netlify/lib/platform/setup.ts";
import { blobStore, type BlobsConnection, type KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { testEnv } from "./env.ts";

export interface TestClock {
  now: number;
  advance(ms: number): void;
}

/** A runtime with every capability (platform/runtime.ts), as no one function has: tests call
 * every endpoint with it. */
export type FullRuntime = Runtime<Capability>;

export type TestRuntime = FullRuntime & {
  clock: TestClock;
  storeName: string;
};

export const START_TIME = Date.UTC(2026, 10, 21, 12, 0, 0);

/** A clock that stands still at `start` until the test moves it. */
export function fixedClock(start = START_TIME): TestClock {
  return {
    now: start,
    advance(ms) {
      this.now += ms;
    },
  };
}

/** The wall clock (for the bench); advance() moves it ahead by that much. */
export function realClock(): TestClock {
  let offset = 0;
  return {
    get now() {
      return Date.now() + offset;
    },
    advance(ms) {
      offset += ms;
    },
  };
}

/** A client whose client_id was not fetched or could not be read. */
export function bareClient(clientId: URL): Promise<ClientInfo> {
  return Promise.resolve({ clientId: clientId.href, redirectUris: [], fetched: false });
}

/** The usual test app: an IndieAuth app whose page was read and names nothing (no h-app, no
 * redirect_uri link); its redirect URIs are on its own origin. The default of testRuntime. */
export function pageClient(clientId: URL): Promise<ClientInfo> {
  return Promise.resolve({ clientId: clientId.href, redirectUris: [], fetched: !isLoopbackHost(clientId.hostname) });
}

export interface TestRuntimeOptions {
  env?: Env;
  /** By default pageClient: the app's page read, naming nothing. */
  discover?: FullRuntime["discover"];
  /** How a client's jwks_uri is fetched (by default, through the address guard). */
  fetchKeys?: FullRuntime["fetchKeys"];
  /** A resource's default scopes (clients/resource-scopes.ts); without it, none are found. */
  resourceScopes?: FullRuntime["resourceScopes"];
  /** How an app's logo is fetched; without it, none is. */
  fetchLogo?: FullRuntime["fetchLogo"];
  storeName?: string;
  /** Where the store connects, instead of the run's Blobs (NETLIFY_BLOBS_CONTEXT): a production
   * double of the test's own, say, with latency or faults (production-blobs.ts). */
  connection?: BlobsConnection;
  /** By default a fixedClock() at START_TIME. */
  clock?: TestClock;
  /** Wraps the Blobs store the handlers get (the bench counts operations this way). */
  wrapStore?: (store: KeyValueStore) => KeyValueStore;
  /** Which build the functions are: "standalone" unless told ("plugin": added to the blog). */
  build?: Build;
}

export async function testRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const clock = options.clock ?? fixedClock();
  const storeName = options.storeName ?? `test-${randomUUID()}`;
  const store = blobStore(storeName, options.connection ? { connection: options.connection } : {});
  return {
    config: loadConfig(await testEnv(options.env), options.build ?? "standalone"),
    store: options.wrapStore ? options.wrapStore(store) : store,
    now: () => clock.now,
    discover: options.discover ?? pageClient,
    ...(options.fetchKeys ? { fetchKeys: options.fetchKeys } : {}),
    resourceScopes:
      options.resourceScopes ?? (() => Promise.resolve({ missing: "this test looks up no resource's metadata" })),
    fetchLogo: options.fetchLogo ?? (() => Promise.reject(new Error("this test fetches no logos"))),
    clock,
    storeName,
  };
}

// A Runtime for in-process handler tests: the real local Blobs server (a store of the test's
// own), an injectable clock, and client discovery that the test controls.
import { randomUUID } from "node:crypto";
import type { ClientInfo } from "../../netlify/lib/clients/client-info.ts";
import { loadConfig, type Env } from "../../netlify/lib/platform/config.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { testEnv } from "./env.ts";

export interface TestClock {
  now: number;
  advance(ms: number): void;
}

export interface TestRuntime extends Runtime {
  clock: TestClock;
  storeName: string;
}

export const START_TIME = Date.UTC(2026, 10, 21, 12, 0, 0);

export function bareClient(clientId: URL): Promise<ClientInfo> {
  return Promise.resolve({ clientId: clientId.href, redirectUris: [], fetched: false });
}

export async function testRuntime(options: { env?: Env; discover?: Runtime["discover"]; storeName?: string } = {}): Promise<TestRuntime> {
  const clock: TestClock = {
    now: START_TIME,
    advance(ms) {
      this.now += ms;
    },
  };
  const storeName = options.storeName ?? `test-${randomUUID()}`;
  return {
    config: loadConfig(await testEnv(options.env)),
    store: blobStore(storeName),
    now: () => clock.now,
    discover: options.discover ?? bareClient,
    clock,
    storeName,
  };
}

// Shared pieces of the attack catalogue (test/adversarial/attacks/): a cheap password hash so
// that many guesses stay fast, a snapshot of a whole store to prove "nothing changed", and a
// reading of server-rendered HTML as a browser would show it.
import { hashSync } from "bcryptjs";
import { expect } from "vitest";
import type { KeyValueStore, Version } from "../../netlify/lib/platform/store.ts";
import { TEST_PASSWORD } from "./env.ts";
import { testRuntime, type TestRuntime } from "./runtime.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import type { ClientInfo } from "../../netlify/lib/clients/client-info.ts";
import { REDIRECT_URI } from "./requests.ts";

/** bcrypt at cost 4 (the server accepts any bcrypt cost): a guess costs a millisecond instead
 * of scrypt's hundred, so suites that make dozens of attempts stay quick. The throttle and the
 * comparison are the same whichever hash the owner configured. */
export const FAST_PASSWORD_HASH = hashSync(TEST_PASSWORD, 4);

export function fastRuntime(options: { env?: Record<string, string>; discover?: Runtime["discover"]; storeName?: string } = {}): Promise<TestRuntime> {
  return testRuntime({ ...options, env: { PASSWORD_HASH: FAST_PASSWORD_HASH, ...options.env } });
}

/** Discovery that finds the test client's document publishing its usual redirect URI: errors
 * are then redirected there (only a trusted redirect URI gets them automatically). */
export async function publishingClient(clientId: URL): Promise<ClientInfo> {
  return { clientId: clientId.href, redirectUris: [REDIRECT_URI], fetched: true };
}

/** Every record of a store, by key. */
export async function storeSnapshot(store: KeyValueStore): Promise<Record<string, unknown>> {
  const keys = (await store.list("")).sort();
  const values = await Promise.all(keys.map((key) => store.get<unknown>(key)));
  return Object.fromEntries(keys.map((key, i) => [key, values[i]]));
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** What a browser shows of an HTML document: tags dropped, character references decoded once. */
export function visibleText(html: string): string {
  // One pass, as a browser decodes: "&#38;lt;" shows as "&lt;", never as "<".
  return html
    .replace(/<[^>]*>/g, " ")
    .replace(/&(?:#(\d+)|#x([0-9a-f]+)|([a-z]+));/gi, (whole, dec?: string, hex?: string, name?: string) => {
      if (dec !== undefined) return String.fromCodePoint(Number(dec));
      if (hex !== undefined) return String.fromCodePoint(parseInt(hex, 16));
      return NAMED_ENTITIES[name!.toLowerCase()] ?? whole;
    });
}

/** The tags a page is allowed to contain: the fixed frame of html.ts, nothing else. */
const FRAME_TAGS = new Set(["!doctype", "html", "head", "meta", "title", "link", "body", "main", "h1", "p", "a"]);

/** The payload shows as text, and the page holds no element but its own frame's. */
export function expectShownAsText(html: string, payload: string): void {
  const tags = [...html.matchAll(/<\/?\s*([!a-z][a-z0-9-]*)/gi)].map((m) => m[1]!.toLowerCase());
  expect(tags.filter((tag) => !FRAME_TAGS.has(tag))).toEqual([]);
  const handlers = [...html.matchAll(/<[a-z][^>]*>/gi)].filter((m) => /[\s/"']on[a-z]+\s*=/i.test(m[0]));
  expect(handlers.map((m) => m[0])).toEqual([]);
  expect(visibleText(html)).toContain(payload);
}

// ---------------------------------------------------------------------------------------
// Conditional writes that are atomic, as the production Blobs service makes them.
//
// The local Blobs server the tests run against (@netlify/blobs/server, also behind
// `netlify dev`) checks If-None-Match / If-Match and then writes, with awaits in between: ten
// concurrent `onlyIfNew` writes to one key can all report `modified`. Races that the server's
// design settles with one conditional write (a code redeemed once, a WebAuthn ticket used once,
// a refresh rotated once) therefore need that write to be atomic here too: this wrapper runs
// every write to one key of one store in turn, within this process. Reads are untouched.

const writeQueues = new Map<string, Promise<unknown>>();

function inTurn<T>(queue: string, work: () => Promise<T>): Promise<T> {
  const previous = writeQueues.get(queue) ?? Promise.resolve();
  const result = previous.then(work, work);
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  writeQueues.set(queue, settled);
  void settled.then(() => {
    if (writeQueues.get(queue) === settled) writeQueues.delete(queue);
  });
  return result;
}

export function withAtomicWrites(store: KeyValueStore, storeName: string): KeyValueStore {
  const queued = <T>(key: string, work: () => Promise<T>): Promise<T> => inTurn(`${storeName}\u0000${key}`, work);
  return {
    get: <T>(key: string) => store.get<T>(key),
    getVersioned: <T>(key: string) => store.getVersioned<T>(key),
    list: (prefix: string) => store.list(prefix),
    set: (key: string, value: unknown) => queued(key, () => store.set(key, value)),
    setIfNew: (key: string, value: unknown) => queued(key, () => store.setIfNew(key, value)),
    setIfUnchanged: (key: string, value: unknown, version: Version) => queued(key, () => store.setIfUnchanged(key, value, version)),
    delete: (key: string) => queued(key, () => store.delete(key)),
  };
}

/** fastRuntime, with the production store's atomic conditional writes. */
export async function atomicRuntime(options: Parameters<typeof fastRuntime>[0] = {}): Promise<TestRuntime> {
  const rt = await fastRuntime(options);
  rt.store = withAtomicWrites(rt.store, rt.storeName);
  return rt;
}

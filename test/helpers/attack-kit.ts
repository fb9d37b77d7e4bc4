// Shared pieces of the attack catalogue (test/adversarial/attacks/): a cheap password hash so
// that many guesses stay fast, a snapshot of a whole store to prove "nothing changed", and a
// reading of server-rendered HTML as a browser would show it.
import { hashSync } from "bcryptjs";
import { expect } from "vitest";
import type { KeyValueStore } from "../../netlify/lib/platform/store.ts";
import { TEST_PASSWORD } from "./env.ts";
import { testRuntime, type TestRuntime, type TestRuntimeOptions } from "./runtime.ts";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { REDIRECT_URI } from "./requests.ts";

/** bcrypt at cost 4 (the server accepts any bcrypt cost): a guess costs a millisecond instead
 * of scrypt's hundred, so suites that make dozens of attempts stay quick. The throttle and the
 * comparison are the same whichever hash the owner configured. */
export const FAST_PASSWORD_HASH = hashSync(TEST_PASSWORD, 4);

export function fastRuntime(
  options: Pick<TestRuntimeOptions, "discover" | "storeName" | "build"> & { env?: Record<string, string> } = {},
): Promise<TestRuntime> {
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

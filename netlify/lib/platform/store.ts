// The only module that talks to Netlify Blobs. Everything else sees JSON records by key.
// Blobs has no TTL: records carry their own expiry and their readers check it.
// Every operation has a deadline: the Blobs client retries a failing request for up to half a
// minute, and a person at the sign-in page, or a Micropub endpoint checking a token, should
// get a clear "try again" long before that.
// Every write goes to a key of a kind declared in records.ts, or is refused.
import { getStore, type Store } from "@netlify/blobs";
import { assertRegistered } from "./records.ts";

/** Storage did not answer in time, or failed: endpoints answer 503, nothing half-done. */
export class StorageUnavailable extends Error {
  constructor(operation: string, cause?: unknown) {
    super(`storage ${operation} failed or timed out`, { cause });
  }
}

/** Where a store connects (tests point one at a faulty server); by default, the environment's. */
export interface BlobsConnection {
  siteID: string;
  token: string;
  edgeURL: string;
  /** Strong consistency reads go here. */
  uncachedEdgeURL: string;
}

interface BlobStoreOptions {
  connection?: BlobsConnection;
  /** Longest wait for one operation, in milliseconds. */
  deadlineMs?: number;
}

export const STORAGE_DEADLINE_MS = 4000;

/** Where a record stood when it was read, to hand back to setIfUnchanged; callers never look
 * inside. A record that exists may come without a tag: the local development server does not
 * return one. */
export type Version = { readonly exists: false } | { readonly exists: true; readonly etag?: string };

interface Versioned<T> {
  /** Null when there is no record. */
  value: T | null;
  version: Version;
}

export interface KeyValueStore {
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
  /** Writes only if the key does not exist yet; false when it did (one conditional write). */
  setIfNew(key: string, value: unknown): Promise<boolean>;
  /** The record (or its absence) with its version, for a later setIfUnchanged. */
  getVersioned<T>(key: string): Promise<Versioned<T>>;
  /** Writes only if the record is still as `version` found it, with one conditional write:
   * created only if still absent, replaced only if still at the version's tag. False when
   * someone wrote in between. Where the read gave no tag (the local development server), a
   * replacement is unconditional and always succeeds. */
  setIfUnchanged(key: string, value: unknown, version: Version): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Keys under a prefix. */
  list(prefix: string): Promise<string[]>;
}

const DEFAULT_STORE_NAME = "indieauth";

class BlobsKeyValueStore implements KeyValueStore {
  readonly #deadlineMs: number;
  constructor(
    readonly name: string,
    private readonly options: BlobStoreOptions = {},
  ) {
    this.#deadlineMs = options.deadlineMs ?? STORAGE_DEADLINE_MS;
  }

  /** A Blobs client whose every HTTP request is aborted with `signal`. One per operation (it
   * costs no I/O): @netlify/blobs takes no per-call signal, only a `fetch` of our own. Created
   * inside a request, so that a missing Blobs context surfaces as a storage error there. */
  #blobs(signal: AbortSignal): Store {
    const fetchUntilDeadline: typeof fetch = (input, init) => fetch(input, { ...init, signal });
    return getStore({ name: this.name, consistency: "strong", ...this.options.connection, fetch: fetchUntilDeadline });
  }

  /** Runs one operation against the deadline; any failure becomes StorageUnavailable. At the
   * deadline the operation's requests are aborted, not abandoned: work left running would hold
   * connections and slow the next request of this instance. (The Blobs client then retries
   * the aborted request a few times after a pause; each retry fails at once, without I/O.) */
  async #timed<T>(operation: string, work: (blobs: Store) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const timedOut = new StorageUnavailable(operation);
        reject(timedOut);
        controller.abort(timedOut);
      }, this.#deadlineMs);
    });
    try {
      return await Promise.race([work(this.#blobs(controller.signal)), deadline]);
    } catch (error) {
      throw error instanceof StorageUnavailable ? error : new StorageUnavailable(operation, error);
    } finally {
      clearTimeout(timer);
    }
  }

  async get<T>(key: string): Promise<T | null> {
    return ((await this.#timed("get", (blobs) => blobs.get(key, { type: "json" }))) as T | null) ?? null;
  }

  // Writes go through set() with a JSON string, not setJSON(): @netlify/blobs 10.7.9's
  // setJSON drops the onlyIfNew / onlyIfMatch condition, which would make codes replayable.
  async set(key: string, value: unknown): Promise<void> {
    assertRegistered(key);
    await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value)));
  }

  async setIfNew(key: string, value: unknown): Promise<boolean> {
    assertRegistered(key);
    const result = await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value), { onlyIfNew: true }));
    return result.modified;
  }

  async getVersioned<T>(key: string): Promise<Versioned<T>> {
    const result = await this.#timed("get", (blobs) => blobs.getWithMetadata(key, { type: "json" }));
    if (!result) return { value: null, version: { exists: false } };
    return { value: result.data as T, version: result.etag ? { exists: true, etag: result.etag } : { exists: true } };
  }

  async setIfUnchanged(key: string, value: unknown, version: Version): Promise<boolean> {
    if (!version.exists) return this.setIfNew(key, value);
    const { etag } = version;
    if (etag === undefined) {
      await this.set(key, value);
      return true;
    }
    assertRegistered(key);
    const result = await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value), { onlyIfMatch: etag }));
    return result.modified;
  }

  async delete(key: string): Promise<void> {
    await this.#timed("delete", (blobs) => blobs.delete(key));
  }

  async list(prefix: string): Promise<string[]> {
    const { blobs } = await this.#timed("list", (store) => store.list({ prefix }));
    return blobs.map((b) => b.key);
  }
}

export function blobStore(name: string = DEFAULT_STORE_NAME, options: BlobStoreOptions = {}): KeyValueStore {
  return new BlobsKeyValueStore(name, options);
}

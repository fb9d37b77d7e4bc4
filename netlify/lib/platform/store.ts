// The only module that talks to Netlify Blobs. Everything else sees JSON records by key.
// Blobs has no TTL: records carry their own expiry and their readers check it.
// Every operation has a deadline: the Blobs client retries a failing request for up to half a
// minute, and a person at the sign-in page, or a Micropub endpoint checking a token, should
// get a clear "try again" long before that.
import { getStore, type Store } from "@netlify/blobs";

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

export interface BlobStoreOptions {
  connection?: BlobsConnection;
  /** Longest wait for one operation, in milliseconds. */
  deadlineMs?: number;
}

export const STORAGE_DEADLINE_MS = 4000;

export interface KeyValueStore {
  get<T>(key: string): Promise<T | null>;
  set(key: string, value: unknown): Promise<void>;
  /** Writes only if the key does not exist yet; false when it did (one conditional write). */
  setIfNew(key: string, value: unknown): Promise<boolean>;
  /** The record with its version tag, for a later setIfMatch. The tag may be absent (the local
   * development server does not return one); callers then fall back to an unconditional write. */
  getVersioned<T>(key: string): Promise<{ value: T; etag?: string } | null>;
  /** Writes only if the record is still at `etag`; false when someone wrote in between. */
  setIfMatch(key: string, value: unknown, etag: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Keys under a prefix. */
  list(prefix: string): Promise<string[]>;
}

export const DEFAULT_STORE_NAME = "indieauth";

class BlobsKeyValueStore implements KeyValueStore {
  #store: Store | undefined;
  readonly #deadlineMs: number;
  constructor(
    readonly name: string,
    private readonly options: BlobStoreOptions = {},
  ) {
    this.#deadlineMs = options.deadlineMs ?? STORAGE_DEADLINE_MS;
  }

  // Created on first use, so that importing this module costs nothing and a missing Blobs
  // context surfaces as a storage error inside a request, where it can be answered.
  get #blobs(): Store {
    this.#store ??= getStore({ name: this.name, consistency: "strong", ...this.options.connection });
    return this.#store;
  }

  /** Runs one operation against the deadline; any failure becomes StorageUnavailable. */
  async #timed<T>(operation: string, work: (blobs: Store) => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StorageUnavailable(operation)), this.#deadlineMs);
    });
    try {
      return await Promise.race([work(this.#blobs), deadline]);
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
    await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value)));
  }

  async setIfNew(key: string, value: unknown): Promise<boolean> {
    const result = await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value), { onlyIfNew: true }));
    return result.modified;
  }

  async getVersioned<T>(key: string): Promise<{ value: T; etag?: string } | null> {
    const result = await this.#timed("get", (blobs) => blobs.getWithMetadata(key, { type: "json" }));
    if (!result) return null;
    return result.etag ? { value: result.data as T, etag: result.etag } : { value: result.data as T };
  }

  async setIfMatch(key: string, value: unknown, etag: string): Promise<boolean> {
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

// The only module that talks to Netlify Blobs; everything else sees JSON records by key, of the
// kinds records.ts declares. Every operation has a deadline (storage-deadline.ts): the Blobs client
// retries a failing request for up to half a minute, and a person should get "try again" long before.
// On the local Blobs server conditional writes to one key take turns (local-write-lock.ts).
import { createHash } from "node:crypto";
import { getStore, type Store } from "@netlify/blobs";
import { withLocalWriteLock } from "./local-write-lock.ts";
import { assertRegistered, type PlainKey } from "./records.ts";
import { withStorageDeadline } from "./storage-deadline.ts";
import { jsonOf } from "../core/json.ts";

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
  uncachedEdgeURL: string;
}

interface BlobStoreOptions {
  connection?: BlobsConnection;
  deadlineMs?: number;
}

const STORAGE_DEADLINE_MS = 4000;
/** The local server (`netlify dev`) runs on this machine, so its time is this machine's queue
 * (docs/performance.md): its deadline only ends a server that stopped, just before netlify dev's
 * own 30-second function timeout would (with a 500). */
const LOCAL_STORAGE_DEADLINE_MS = 25_000;
const LOCAL_WALL_MS = 28_000;

/** A conditional write was asked to replace a record whose read gave no version (Blobs answered
 * it without an ETag): it cannot be made conditional, so it is not made at all. */
export class UnversionedRecord extends StorageUnavailable {
  constructor(key: string) {
    const reason = `refusing a conditional write to "${key}": its read gave no version (Blobs answered it without an ETag)`;
    super("set", new Error(reason));
    this.message = reason;
  }
}

/** Where a record stood when it was read, to hand back to setIfUnchanged; callers never look inside. */
export type Version = { readonly exists: false } | { readonly exists: true; readonly etag?: string };

export interface Versioned<T> {
  value: T | null;
  version: Version;
}

export interface KeyValueStore {
  get<T>(key: string): Promise<T | null>;
  /** A plain write (last one wins), only to a kind declared plain in records.ts. */
  set(key: PlainKey, value: unknown): Promise<void>;
  /** Writes only if the key does not exist yet; false when it did (one conditional write). */
  setIfNew(key: string, value: unknown): Promise<boolean>;
  /** The record (or its absence) with its version, for a later setIfUnchanged. */
  getVersioned<T>(key: string): Promise<Versioned<T>>;
  /** Writes only if the record is still as `version` found it, with one conditional write; false
   * when someone wrote in between. A version without a tag throws UnversionedRecord. */
  setIfUnchanged(key: string, value: unknown, version: Version): Promise<boolean>;
  delete(key: string): Promise<void>;
  list(prefix: string): Promise<string[]>;
}

const DEFAULT_STORE_NAME = "indieauth";

/** @netlify/blobs types a text read as a string; a missing key reads as null. */
const textOf = (blobs: Store, key: string) => blobs.get(key, { type: "text" }) as Promise<string | null>;

/** Where the environment's Blobs context points (as @netlify/blobs reads it), if anywhere. */
function environmentConnection(): Partial<BlobsConnection> {
  const encoded =
    (globalThis as { netlifyBlobsContext?: unknown }).netlifyBlobsContext || process.env.NETLIFY_BLOBS_CONTEXT;
  if (typeof encoded !== "string" || !encoded) return {};
  const parsed = jsonOf(Buffer.from(encoded, "base64").toString("utf8"));
  return typeof parsed === "object" && parsed !== null ? parsed : {};
}

/** The local emulation (`netlify dev`, the tests) answers plain http on a loopback host;
 * production Blobs is https on Netlify's edge. */
export function isLocalBlobsServer(edgeURL: string | undefined): boolean {
  if (!edgeURL) return false;
  try {
    const url = new URL(edgeURL);
    return url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  } catch {
    return false;
  }
}

/** On the local server, a record's version is its content's hash: that server returns no etag
 * with a read, and its etags (made of a file's modification time) repeat within a millisecond. */
function contentVersion(text: string): string {
  return `local:${createHash("sha256").update(text).digest("base64url")}`;
}

/** A conditional write's outcome. @netlify/blobs 10.7.9 reports any answer but 412 to a
 * conditional write as written, a 401 or a 5xx that outlasted its retries too; a write that
 * modified the entry carries its new ETag (its WriteResult type says so), so one without it
 * failed, and may or may not have landed. */
function written(result: { modified: boolean; etag?: string }): boolean {
  if (result.modified && !result.etag)
    throw new StorageUnavailable("set", new Error("a conditional write was answered neither 412 nor with an ETag"));
  return result.modified;
}

class BlobsKeyValueStore implements KeyValueStore {
  readonly #deadline: { ms: number; wallMs?: number } | undefined;
  constructor(
    readonly name: string,
    private readonly options: BlobStoreOptions = {},
  ) {
    this.#deadline = options.deadlineMs === undefined ? undefined : { ms: options.deadlineMs };
  }

  /** As told, or by where storage is (read with the first operation: see #blobs). */
  get #deadlineOf(): { ms: number; wallMs?: number } {
    return (
      this.#deadline ??
      (this.#local === null ? { ms: STORAGE_DEADLINE_MS } : { ms: LOCAL_STORAGE_DEADLINE_MS, wallMs: LOCAL_WALL_MS })
    );
  }

  /** A Blobs client whose every HTTP request is aborted with `signal` (@netlify/blobs takes no
   * per-call signal, only a `fetch`): one per operation, so that a missing context fails there. */
  #blobs(signal: AbortSignal): Store {
    // The local server by its address, not its name: under a burst, looking "localhost" up
    // waited seconds behind the other threads' file reads (libuv's pool is the process's).
    const loopback = this.#local !== null;
    const fetchUntilDeadline: typeof fetch = (input, init) =>
      fetch(
        loopback && typeof input === "string" ? input.replace(/^http:\/\/localhost:/, "http://127.0.0.1:") : input,
        { ...init, signal },
      );
    return getStore({ name: this.name, consistency: "strong", ...this.options.connection, fetch: fetchUntilDeadline });
  }

  /** For the local server only: the lock scope of this store's keys (null in production). */
  #localScope: string | null | undefined;
  get #local(): string | null {
    if (this.#localScope === undefined) {
      const { edgeURL, siteID } = this.options.connection ?? environmentConnection();
      this.#localScope = isLocalBlobsServer(edgeURL) ? `${edgeURL}\u0000${siteID ?? ""}\u0000${this.name}\u0000` : null;
    }
    return this.#localScope;
  }

  /** Runs one operation against the deadline; any failure becomes StorageUnavailable. At the
   * deadline its requests are aborted, not abandoned: work left running would hold connections and
   * slow this instance's next request. (The client's retries of an aborted request fail at once.) */
  async #timed<T>(operation: string, work: (blobs: Store, signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      const { ms, wallMs } = this.#deadlineOf;
      return await withStorageDeadline(
        ms,
        (signal) => work(this.#blobs(signal), signal),
        () => new StorageUnavailable(operation),
        wallMs,
      );
    } catch (error) {
      throw error instanceof StorageUnavailable ? error : new StorageUnavailable(operation, error);
    }
  }

  /** A conditional write on the local server, which (unlike production Blobs) does not make it
   * atomic: it holds the key's lock, so that its check-then-write is one step. (Plain writes and
   * deletes do not wait for it: a plain write to a kind written conditionally is refused.) */
  #write<T>(key: string, work: (blobs: Store) => Promise<T>): Promise<T> {
    return this.#timed("set", (blobs, signal) => {
      const scope = this.#local;
      return scope === null ? work(blobs) : withLocalWriteLock(scope + key, signal, () => work(blobs));
    });
  }

  async get<T>(key: string): Promise<T | null> {
    return ((await this.#timed("get", (blobs) => blobs.get(key, { type: "json" }))) as T | null) ?? null;
  }

  // Writes go through set() with a JSON string, not setJSON(): @netlify/blobs 10.7.9's
  // setJSON drops the onlyIfNew / onlyIfMatch condition, which would make codes replayable.
  async set(key: PlainKey, value: unknown): Promise<void> {
    assertRegistered(key, "plain");
    await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value)));
  }

  async setIfNew(key: string, value: unknown): Promise<boolean> {
    assertRegistered(key);
    // The local server, under the key's lock: a read, then a plain write (whose failure throws).
    // Its conditional PUT answers a write that a delete removed at that moment without an ETag,
    // which the client reports as written and the store cannot tell from a failure.
    if (this.#local !== null)
      return this.#write(
        key,
        async (blobs) => (await textOf(blobs, key)) === null && (await blobs.set(key, JSON.stringify(value)), true),
      );
    return written(await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value), { onlyIfNew: true })));
  }

  async getVersioned<T>(key: string): Promise<Versioned<T>> {
    if (this.#local !== null) {
      return this.#timed("get", async (blobs) => {
        const text = await textOf(blobs, key);
        if (text === null) return { value: null, version: { exists: false } };
        return { value: JSON.parse(text) as T, version: { exists: true, etag: contentVersion(text) } };
      });
    }
    const result = await this.#timed("get", (blobs) => blobs.getWithMetadata(key, { type: "json" }));
    if (!result) return { value: null, version: { exists: false } };
    return { value: result.data as T, version: result.etag ? { exists: true, etag: result.etag } : { exists: true } };
  }

  async setIfUnchanged(key: string, value: unknown, version: Version): Promise<boolean> {
    if (!version.exists) return this.setIfNew(key, value);
    assertRegistered(key);
    const { etag } = version;
    if (etag === undefined) throw new UnversionedRecord(key);
    if (this.#local !== null) {
      // The local server: compare the content as it is now, and write, under the key's lock.
      return this.#write(key, async (blobs) => {
        const current = await textOf(blobs, key);
        if (current === null || contentVersion(current) !== etag) return false;
        await blobs.set(key, JSON.stringify(value));
        return true;
      });
    }
    const result = await this.#timed("set", (blobs) => blobs.set(key, JSON.stringify(value), { onlyIfMatch: etag }));
    return written(result);
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

// A test double of Netlify Blobs as a deployed function reaches it: the HTTP interface that
// @netlify/blobs 10.7.9 (node_modules/@netlify/blobs/dist/chunk-*.js, main.js) speaks to the
// context's `uncachedEdgeURL` (every request of a store opened with consistency "strong", as
// platform/store.ts opens its own) and `edgeURL` (the CDN: reads may be stale), with the
// context's token as a Bearer. It is served over https, so platform/store.ts takes it for
// production Blobs (isLocalBlobsServer: "not local") and runs its production branch unchanged.
//
// What the client sends and what it expects back (store name "site:<name>", key as the path):
//   GET    /<site>/<store>/<key>        200 with the bytes, an ETag and the metadata header; 404;
//                                       304 when If-None-Match is the current ETag
//   HEAD   /<site>/<store>/<key>        as GET, without the bytes
//   PUT    /<site>/<store>/<key>        200 with the new ETag; If-Match: <etag> or
//                                       If-None-Match: * make it conditional: 412 when not met
//                                       (the client's "not modified": { modified: false })
//   DELETE /<site>/<store>/<key>        204, whether or not it existed
//   GET    /<site>/<store>?prefix=&cursor=
//                                       { blobs: [{ key, etag, last_modified, size }],
//                                       directories: [], next_cursor } a page at a time
//   DELETE /<site>/<store>              { blobs_deleted, has_more }
//   GET    /<site>?prefix=site:         { stores }
// A conditional write is checked and applied in one step (nothing else runs in between), and
// every write gives its key an ETag never given before, even for the same bytes.
//
// Faults, for the tests that need them: latency added to every request (`latencyMs`), and per
// request a stall (never answered), a status (a 5xx), a dropped connection, or an answer
// without its ETag; before the operation is applied (nothing happened) or after (it happened,
// its answer is lost). Mind that the client retries a 5xx, a 429 and a failed connection five
// times before it gives up: a fault meant to reach the store must outlast them (the default,
// `times` unset, hits every matching request until removed). No vitest here.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { BlobsConnection } from "../../netlify/lib/platform/store.ts";
import { makeTestCertificate, runCertificate, type TestCertificate } from "./test-tls.ts";

export type BlobsOperation = "get" | "getMetadata" | "set" | "delete" | "list" | "deleteAll" | "listStores";

/** A request as the double understood it (what a fault rule matches on). */
export interface BlobsRequest {
  operation: BlobsOperation;
  /** Which URL of the context it went to: `uncachedEdgeURL` or `edgeURL` (the CDN). */
  edge: "uncached" | "cached";
  /** The store as the client names it ("site:indieauth"); null for listStores. */
  store: string | null;
  key: string | null;
  /** The condition a write carried. */
  condition: "if-match" | "if-none-match" | null;
}

/** What a fault does to a request: never answers it, answers it with a status, drops its
 * connection, or answers it without the ETag header. */
export type Fault = "stall" | "drop" | "no-etag" | { status: number };

export interface FaultRule {
  /** Which requests it hits (every one by default). */
  match?: (request: BlobsRequest) => boolean;
  fault: Fault;
  /** "before": instead of the operation (nothing is written); "after": once it is applied (a
   * write landed; its answer is lost, or wrong). "before" by default. */
  when?: "before" | "after";
  /** How many matching requests it hits; every one until removed, by default. */
  times?: number;
}

export interface InjectedFault {
  /** How many requests it has hit. */
  readonly hits: number;
  remove(): void;
}

export type Latency = number | ((request: BlobsRequest) => number);

export interface ProductionBlobsOptions {
  siteID?: string;
  token?: string;
  /** Milliseconds added to every request before it is handled (each storage operation of the
   * store then takes that much more; a conditional write is checked when the wait ends), or
   * per request (writes only, say). */
  latencyMs?: Latency;
  /** Blobs per list page before a `next_cursor` (1,000 by default). */
  pageSize?: number;
  /** How long the CDN (`edgeURL`) serves a read it made before reading again. */
  cacheMs?: number;
  /** The https certificate; by default the run's (test-tls.ts), which the test workers trust.
   * Outside such a run a new one is made: trust its `caCert` (NODE_EXTRA_CA_CERTS) in the
   * process that talks to the double. */
  tls?: TestCertificate;
}

export interface ProductionBlobs {
  /** For blobStore(name, { connection }). */
  connection: BlobsConnection;
  /** The NETLIFY_BLOBS_CONTEXT value (base64 JSON), as Netlify gives it to a function. */
  context: string;
  /** The CA to trust (already trusted in a test run's workers). */
  caCert: string;
  /** Milliseconds added to every request from now on (or per request). */
  latencyMs: Latency;
  /** Every request received, in order (clear it with `requests.length = 0`). */
  readonly requests: BlobsRequest[];
  inject(rule: FaultRule): InjectedFault;
  stop(): Promise<void>;
}

interface Entry {
  body: Buffer;
  etag: string;
  metadata: string | null;
  modifiedAt: number;
}

const METADATA_HEADER = "x-amz-meta-user";
const REGION_PREFIX = "region:";

/** UTF-8 byte order, as an object store lists keys. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const OPERATIONS: Record<"site" | "store" | "key", Partial<Record<string, BlobsOperation>>> = {
  site: { GET: "listStores" },
  store: { GET: "list", DELETE: "deleteAll" },
  key: { GET: "get", HEAD: "getMetadata", PUT: "set", DELETE: "delete" },
};

/** What a method means on a site's path, a store's, or a key's. */
function operationOf(method: string, store: boolean, key: boolean): BlobsOperation | null {
  return OPERATIONS[key ? "key" : store ? "store" : "site"][method] ?? null;
}

interface Parsed extends BlobsRequest {
  site: string;
  query: URLSearchParams;
}

function parse(req: IncomingMessage, edge: BlobsRequest["edge"]): Parsed | null {
  const url = new URL(req.url ?? "/", "https://blobs.invalid");
  let parts = url.pathname.split("/").slice(1);
  if (parts[0]?.startsWith(REGION_PREFIX)) parts = parts.slice(1);
  const [site, store, ...rest] = parts;
  if (!site) return null;
  const key = rest.length > 0 ? decodeURIComponent(rest.join("/")) : null;
  const method = req.method ?? "GET";
  const condition = req.headers["if-match"]
    ? "if-match"
    : req.headers["if-none-match"] && method === "PUT"
      ? "if-none-match"
      : null;
  const operation = operationOf(method, Boolean(store), Boolean(key));
  if (!operation) return null;
  return {
    operation,
    edge,
    store: store ? decodeURIComponent(store) : null,
    key: key || null,
    condition,
    site,
    query: url.searchParams,
  };
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export async function startProductionBlobs(options: ProductionBlobsOptions = {}): Promise<ProductionBlobs> {
  const siteID = options.siteID ?? "test";
  const token = options.token ?? randomBytes(16).toString("hex");
  const pageSize = options.pageSize ?? 1000;
  const cacheMs = options.cacheMs ?? 60_000;
  const tls = options.tls ?? (await runCertificate()) ?? (await makeTestCertificate());
  const stores = new Map<string, Map<string, Entry>>();
  const cdn = new Map<string, { entry: Entry | undefined; at: number }>();
  const rules = new Set<FaultRule & { hits: number }>();
  const sockets = new Set<Socket>();
  const instance = randomBytes(4).toString("hex");
  let sequence = 0;

  const storeOf = (name: string) => {
    let store = stores.get(name);
    if (!store) stores.set(name, (store = new Map()));
    return store;
  };
  const entryHeaders = (entry: Entry): Record<string, string> => ({
    etag: entry.etag,
    "last-modified": new Date(entry.modifiedAt).toUTCString(),
    ...(entry.metadata ? { [METADATA_HEADER]: entry.metadata } : {}),
  });

  /** One operation, applied at once: nothing else runs between a condition's check and its write. */
  function apply(request: Parsed, req: IncomingMessage, body: Buffer): Answer {
    const store = storeOf(request.store ?? "");
    const key = request.key ?? "";
    switch (request.operation) {
      case "get":
      case "getMetadata": {
        let entry = store.get(key);
        if (request.edge === "cached") {
          const cacheKey = `${request.store}\u0000${key}`;
          const cached = cdn.get(cacheKey);
          if (cached && Date.now() - cached.at < cacheMs) entry = cached.entry;
          else cdn.set(cacheKey, { entry, at: Date.now() });
        }
        if (!entry) return { status: 404 };
        if (req.headers["if-none-match"] === entry.etag) return { status: 304, headers: entryHeaders(entry) };
        return {
          status: 200,
          headers: entryHeaders(entry),
          ...(request.operation === "get" ? { body: entry.body } : {}),
        };
      }
      case "set": {
        const current = store.get(key);
        const ifMatch = req.headers["if-match"];
        if (ifMatch !== undefined && (!current || current.etag !== ifMatch)) return { status: 412 };
        if (req.headers["if-none-match"] === "*" && current) return { status: 412 };
        const metadata = req.headers[METADATA_HEADER];
        const entry: Entry = {
          body,
          etag: `"${instance}-${++sequence}"`,
          metadata: typeof metadata === "string" ? metadata : null,
          modifiedAt: Date.now(),
        };
        store.set(key, entry);
        return { status: 200, headers: { etag: entry.etag } };
      }
      case "delete":
        store.delete(key);
        return { status: 204 };
      case "list": {
        if (request.query.get("directories") === "true")
          return { status: 501, body: "the double does not list directories" };
        const prefix = request.query.get("prefix") ?? "";
        const cursor = request.query.get("cursor");
        const after = cursor ? Buffer.from(cursor, "base64url").toString() : null;
        const keys = [...store.keys()]
          .filter((k) => k.startsWith(prefix) && (after === null || byBytes(k, after) > 0))
          .sort(byBytes);
        const page = keys.slice(0, pageSize);
        const blobs = page.map((k) => {
          const entry = store.get(k)!;
          return {
            key: k,
            etag: entry.etag,
            last_modified: new Date(entry.modifiedAt).toISOString(),
            size: entry.body.length,
          };
        });
        const more =
          keys.length > page.length ? { next_cursor: Buffer.from(page[page.length - 1]!).toString("base64url") } : {};
        return json({ blobs, directories: [], ...more });
      }
      case "deleteAll": {
        const deleted = store.size;
        store.clear();
        return json({ blobs_deleted: deleted, has_more: false });
      }
      case "listStores": {
        const prefix = request.query.get("prefix") ?? "";
        return json({
          stores: [...stores.keys()]
            .filter((name) => name.startsWith(prefix) && stores.get(name)!.size > 0)
            .sort(byBytes),
        });
      }
    }
  }

  function faultFor(request: BlobsRequest, when: "before" | "after"): Fault | null {
    for (const rule of rules) {
      if ((rule.when ?? "before") !== when || (rule.match && !rule.match(request))) continue;
      rule.hits++;
      if (rule.times !== undefined && rule.hits >= rule.times) rules.delete(rule);
      return rule.fault;
    }
    return null;
  }

  /** Answers, unless a fault says otherwise. Stalled requests are answered never: their client
   * gives up on them (or stop() ends them). */
  function send(res: ServerResponse, answer: Answer, fault: Fault | null): void {
    if (fault === "stall") return;
    if (fault === "drop") return void res.socket?.destroy();
    if (fault !== null && fault !== "no-etag")
      return void res.writeHead(fault.status, { "x-nf-error": "injected by the test double" }).end();
    const headers = { ...answer.headers };
    if (fault === "no-etag") delete headers.etag;
    res.writeHead(answer.status, headers).end(answer.body);
  }

  const blobs: ProductionBlobs = {
    connection: { siteID, token, edgeURL: "", uncachedEdgeURL: "" },
    context: "",
    caCert: tls.caCert,
    latencyMs: options.latencyMs ?? 0,
    requests: [],
    inject(rule) {
      const held = { ...rule, hits: 0 };
      rules.add(held);
      return {
        get hits() {
          return held.hits;
        },
        remove: () => void rules.delete(held),
      };
    },
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };

  const handler = (edge: BlobsRequest["edge"]) => async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
    const request = parse(req, edge);
    if (!request) return void res.writeHead(Object.hasOwn(OPERATIONS.key, req.method ?? "") ? 400 : 405).end();
    if (request.site !== siteID) return void res.writeHead(401).end();
    blobs.requests.push({
      operation: request.operation,
      edge,
      store: request.store,
      key: request.key,
      condition: request.condition,
    });
    const latency = typeof blobs.latencyMs === "function" ? blobs.latencyMs(request) : blobs.latencyMs;
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
    const before = faultFor(request, "before");
    if (before !== null && before !== "no-etag") return send(res, { status: 500 }, before);
    const answer = apply(request, req, body);
    send(res, answer, before ?? faultFor(request, "after"));
  };

  const servers: Server[] = [];
  const listen = async (edge: BlobsRequest["edge"]): Promise<string> => {
    // A request whose client went away while it was read or waited is dropped.
    const server = createServer(
      { key: tls.key, cert: tls.cert },
      (req, res) => void handler(edge)(req, res).catch(() => res.destroy()),
    );
    server.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const [uncachedEdgeURL, edgeURL] = await Promise.all([listen("uncached"), listen("cached")]);
  blobs.connection = { siteID, token, edgeURL, uncachedEdgeURL };
  blobs.context = Buffer.from(JSON.stringify(blobs.connection)).toString("base64");
  return blobs;
}

function json(value: unknown): Answer {
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(value) };
}

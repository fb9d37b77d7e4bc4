// The local Blobs server of `netlify dev` answers a conditional PUT whose file a delete removed
// at that very moment with 200 and an empty ETag, which @netlify/blobs reports as written and
// cannot be told from a failure that outlasted its retries. Under a burst of sign-ins (the
// throttle deletes a counter as another attempt creates it) that was a 503 for the person.
// The store's local branch therefore makes a write-if-new as a read and a plain write under the
// key's lock, and never asks the local server for an ETag. Here a loopback proxy strips every
// PUT's ETag on its way back: the store must not care.
import { randomUUID } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { startLocalBlobs, type LocalBlobs } from "../helpers/local-blobs.ts";

let local: LocalBlobs;
let proxy: Server;
let proxyUrl: string;

beforeAll(async () => {
  local = await startLocalBlobs();
  const target = new URL(local.url);
  proxy = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        const headers = { ...answer.headers };
        if (req.method === "PUT") delete headers.etag;
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await local?.stop();
});

it("a write-if-new on the local server is answered by what is stored, not by the server's ETag", async () => {
  const store = blobStore(`etagless-${randomUUID()}`, {
    connection: { siteID: local.siteID, token: local.token, edgeURL: proxyUrl, uncachedEdgeURL: proxyUrl },
  });
  const key = RECORDS.usedCode.key(randomUUID());
  expect(await store.setIfNew(key, { first: true })).toBe(true);
  expect(await store.setIfNew(key, { second: true })).toBe(false);
  expect(await store.get(key)).toEqual({ first: true });
});

// A real Netlify Blobs server on localhost, in a folder of its own (never a mock). The test
// run's global setup and the bench both start theirs here. No vitest here.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobsServer } from "@netlify/blobs/server";

export interface LocalBlobs {
  /** The value for NETLIFY_BLOBS_CONTEXT: base64 JSON with edgeURL (not apiURL: with apiURL the
   * local server drops the query string and list() comes back empty). */
  context: string;
  url: string;
  stop(): Promise<void>;
}

export async function startLocalBlobs(options: { siteID?: string; token?: string } = {}): Promise<LocalBlobs> {
  const directory = await mkdtemp(join(tmpdir(), "indieauth-blobs-"));
  const token = options.token ?? randomBytes(16).toString("hex");
  const server = new BlobsServer({ directory, token });
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}`;
  const context = Buffer.from(JSON.stringify({ siteID: options.siteID ?? "test", token, edgeURL: url, uncachedEdgeURL: url })).toString("base64");
  return {
    context,
    url,
    async stop() {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

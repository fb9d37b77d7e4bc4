// A real Netlify Blobs server on localhost, in a folder of its own (never a mock). The test
// run's global setup and the bench both start theirs here. No vitest here.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { BlobsServer } from "@netlify/blobs/server";

export interface LocalBlobs {
  /** The value for NETLIFY_BLOBS_CONTEXT: base64 JSON with edgeURL (not apiURL: with apiURL the
   * local server drops the query string and list() comes back empty). */
  context: string;
  url: string;
  siteID: string;
  token: string;
  /** Where the server keeps its files (entries/<site>/site:<store>/<key>, the key's slashes as folders). */
  directory: string;
  stop(): Promise<void>;
}

/** The NETLIFY_BLOBS_CONTEXT value for a local server at `url`. */
export function localBlobsContext(siteID: string, token: string, url: string): string {
  return Buffer.from(JSON.stringify({ siteID, token, edgeURL: url, uncachedEdgeURL: url })).toString("base64");
}

export async function startLocalBlobs(options: { siteID?: string; token?: string } = {}): Promise<LocalBlobs> {
  const directory = await mkdtemp(join(tmpdir(), "indieauth-blobs-"));
  const token = options.token ?? randomBytes(16).toString("hex");
  const server = new BlobsServer({ directory, token });
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}`;
  const context = localBlobsContext(options.siteID ?? "test", token, url);
  return {
    context,
    url,
    siteID: options.siteID ?? "test",
    token,
    directory,
    async stop() {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** Writes records straight into the server's folder, as its own writes lay them out (for
 * seeding tens of thousands fast; a test reads one back through the server to prove the layout). */
export async function writeRecordsDirectly(
  blobs: LocalBlobs,
  storeName: string,
  records: readonly (readonly [string, unknown])[],
  atOnce = 256,
): Promise<void> {
  // A store named "x" is "site:x" on the server.
  const root = join(blobs.directory, "entries", blobs.siteID, `site:${storeName}`);
  const folders = new Set(records.map(([key]) => dirname(join(root, ...key.split("/")))));
  for (const folder of folders) await mkdir(folder, { recursive: true });
  for (let i = 0; i < records.length; i += atOnce) {
    await Promise.all(
      records.slice(i, i + atOnce).map(async ([key, value]) => {
        await writeFile(join(root, ...key.split("/")), JSON.stringify(value));
      }),
    );
  }
}

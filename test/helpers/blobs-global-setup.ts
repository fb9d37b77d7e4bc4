import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobsServer } from "@netlify/blobs/server";

// One real local Blobs server for the whole run (never a mock). Test files get it through
// NETLIFY_BLOBS_CONTEXT, exactly as functions get it on Netlify; each suite uses its own
// store name so suites running in parallel never see each other's records.
export default async function setup(): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), "indieauth-blobs-"));
  const token = "test-token";
  const server = new BlobsServer({ directory, token });
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}`;
  process.env.NETLIFY_BLOBS_CONTEXT = Buffer.from(
    JSON.stringify({ siteID: "test", token, edgeURL: url, uncachedEdgeURL: url }),
  ).toString("base64");
  return async () => {
    await server.stop();
    await rm(directory, { recursive: true, force: true });
  };
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlobsServer } from "@netlify/blobs/server";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    blobsContext: string;
  }
}

// One real local Blobs server for the whole run (never a mock). Test workers get it through
// NETLIFY_BLOBS_CONTEXT (set by blobs-setup-file.ts), exactly as functions get it on Netlify;
// each suite uses its own store name so suites in parallel never see each other's records.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), "indieauth-blobs-"));
  const token = "test-token";
  const server = new BlobsServer({ directory, token });
  const { port } = await server.start();
  const url = `http://127.0.0.1:${port}`;
  project.provide(
    "blobsContext",
    Buffer.from(JSON.stringify({ siteID: "test", token, edgeURL: url, uncachedEdgeURL: url })).toString("base64"),
  );
  return async () => {
    await server.stop();
    await rm(directory, { recursive: true, force: true });
  };
}

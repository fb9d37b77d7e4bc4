import type { TestProject } from "vitest/node";
import { startLocalBlobs } from "./local-blobs.ts";

declare module "vitest" {
  export interface ProvidedContext {
    blobsContext: string;
  }
}

// One real local Blobs server for the whole run (never a mock). Test workers get it through
// NETLIFY_BLOBS_CONTEXT (set by blobs-setup-file.ts), exactly as functions get it on Netlify;
// each suite uses its own store name so suites in parallel never see each other's records.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const blobs = await startLocalBlobs({ siteID: "test", token: "test-token" });
  project.provide("blobsContext", blobs.context);
  return () => blobs.stop();
}

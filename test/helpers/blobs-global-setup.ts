import type { TestProject } from "vitest/node";
import { startLocalBlobs } from "./local-blobs.ts";
import { trustRunCertificate } from "./test-tls.ts";

declare module "vitest" {
  export interface ProvidedContext {
    blobsContext: string;
    /** Which Blobs the run's stores talk to: the local server, or the production double. */
    blobsServer: "local" | "production-double";
  }
}

// One real local Blobs server for the whole run (never a mock). Test workers get it through
// NETLIFY_BLOBS_CONTEXT (set by blobs-setup-file.ts), exactly as functions get it on Netlify;
// each suite uses its own store name so suites in parallel never see each other's records.
// The run's https certificate is trusted in every worker, so that a test can start a
// production Blobs double of its own (production-blobs.ts) and reach it.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const untrust = await trustRunCertificate();
  const blobs = await startLocalBlobs({ siteID: "test", token: "test-token" });
  project.provide("blobsContext", blobs.context);
  project.provide("blobsServer", "local");
  return async () => {
    await blobs.stop();
    await untrust();
  };
}

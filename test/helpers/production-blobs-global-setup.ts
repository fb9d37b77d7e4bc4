import type { TestProject } from "vitest/node";
import { startProductionBlobs } from "./production-blobs.ts";
import { trustRunCertificate } from "./test-tls.ts";

// For `npm run test:production-store` (test/vitest.production-store.config.ts): the run's stores
// talk to the production Blobs double instead of the local server, over https, so that
// platform/store.ts runs the branch it runs on Netlify (ETags, If-Match, If-None-Match). Its list
// pages are small, so that every list of the suite follows cursors as a large store's would.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const untrust = await trustRunCertificate();
  const blobs = await startProductionBlobs({ siteID: "test", pageSize: 25 });
  project.provide("blobsContext", blobs.context);
  project.provide("blobsServer", "production-double");
  return async () => {
    await blobs.stop();
    await untrust();
  };
}

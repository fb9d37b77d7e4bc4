// Runs in every test worker: points @netlify/blobs at the run's Blobs (the local server, or the
// production double under test/vitest.production-store.config.ts).
import { inject } from "vitest";

process.env.NETLIFY_BLOBS_CONTEXT = inject("blobsContext");

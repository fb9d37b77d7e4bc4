// Runs in every test worker: points @netlify/blobs at the run's local Blobs server.
import { inject } from "vitest";

process.env.NETLIFY_BLOBS_CONTEXT = inject("blobsContext");

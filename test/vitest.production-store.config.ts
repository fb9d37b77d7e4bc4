import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { PRODUCTION_STORE } from "./suites.ts";

// `npm run test:production-store`: the files whose guarantees rest on the store's conditional
// writes (codes, grants, rotation, revocation, throttle counters, passkeys, app summaries,
// housekeeping; test/suites.ts lists them), run again with every store of the run talking to
// the production Blobs double (test/helpers/production-blobs.ts) instead of the local server:
// platform/store.ts then runs its production branch, the one Netlify runs (ETags, If-Match,
// If-None-Match), where `npm test` runs its local one. Only those files, not the whole suite twice.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: PRODUCTION_STORE,
    globalSetup: ["test/helpers/production-blobs-global-setup.ts"],
    setupFiles: ["test/helpers/blobs-setup-file.ts"],
    maxWorkers: availableParallelism() + 1,
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});

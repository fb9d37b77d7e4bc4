import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { QUICK_E2E } from "./suites.ts";

// `npm test`: unit, integration (handlers in-process against a real local Blobs server),
// the adversarial suite (generated hostile input and one test per known attack) and the quick
// end-to-end files (real HTTP through one `netlify dev` each; test/suites.ts). The blogs and
// packages built and served whole are `npm run test:e2e` (test/e2e/vitest.config.ts); the
// browser suite has its own config too.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts", "test/adversarial/**/*.test.ts", ...QUICK_E2E],
    globalSetup: ["test/helpers/blobs-global-setup.ts", "test/helpers/functions-global-setup.ts"],
    setupFiles: ["test/helpers/blobs-setup-file.ts"],
    // Vitest's default is one worker less than the cores: one worker on a 2-core machine, which
    // left a core idle while files waited on netlify dev, the Blobs server or child processes.
    maxWorkers: availableParallelism() + 1,
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});

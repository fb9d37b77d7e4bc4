import { defineConfig } from "vitest/config";

// `npm test`: unit, integration (handlers in-process against a real local Blobs server),
// the adversarial suite (generated hostile input and one test per known attack) and
// end-to-end (real HTTP through `netlify dev`). The browser suite has its own config.
export default defineConfig({
  test: {
    root: new URL("..", import.meta.url).pathname,
    include: ["test/unit/**/*.test.ts", "test/integration/**/*.test.ts", "test/adversarial/**/*.test.ts", "test/e2e/**/*.test.ts"],
    globalSetup: ["test/helpers/blobs-global-setup.ts"],
    setupFiles: ["test/helpers/blobs-setup-file.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});

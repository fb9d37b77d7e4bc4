import { defineConfig } from "vitest/config";

// `npm run test:browser`: the sign-in page in a real Chromium, against `netlify dev`.
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/browser/**/*.test.ts"],
    globalSetup: ["test/helpers/functions-global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});

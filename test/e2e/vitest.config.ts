import { configDefaults, defineConfig } from "vitest/config";
import { QUICK_E2E } from "../suites.ts";

// `npm run test:e2e`: what must stay slow. Whole blogs and packages built and served as a person
// would: the package's `npm pack` tarball installed in fixture blogs, `netlify build`, Eleventy
// and Hugo builds, `npx netlify-indieauth dev`, `npm start`, two servers side by side. Every file
// under test/e2e except the quick ones `npm test` runs (test/suites.ts).
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/e2e/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...QUICK_E2E],
    globalSetup: [
      "test/helpers/blobs-global-setup.ts",
      "test/helpers/functions-global-setup.ts",
      "test/helpers/pack-global-setup.ts",
    ],
    setupFiles: ["test/helpers/blobs-setup-file.ts", "test/helpers/pack-setup-file.ts"],
    testTimeout: 20_000,
    hookTimeout: 120_000,
  },
});

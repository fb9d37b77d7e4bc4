// Runs in every worker of the blog suite: the run's one `npm pack` tarball (pack-global-setup.ts).
import { inject } from "vitest";

process.env.INDIEAUTH_TEST_TARBALL = inject("packedTarball");

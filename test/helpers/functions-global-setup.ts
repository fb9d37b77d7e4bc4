import { cachedFunctions, pruneFunctionCache } from "./built-functions.ts";

// Builds the functions (both builds: standalone and as the blog plugin builds them) once, before
// any test file starts, so that the files that start `netlify dev` side by side do not each build
// them; a later run with the same sources finds them built (test/helpers/built-functions.ts).
export default async function setup(): Promise<void> {
  await pruneFunctionCache();
  await Promise.all([cachedFunctions("standalone"), cachedFunctions("plugin")]);
}

// The test helper's servers side by side (vitest runs test files in parallel, each with its own
// `netlify dev`): while a second server starts, the first keeps answering every function request,
// and none of the modules it serves functions from is rewritten.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { functionStatusesUntil, servedModules } from "../helpers/side-by-side.ts";

const packageRoot = new URL("../..", import.meta.url).pathname;
const servers: NetlifyDev[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

describe("test servers side by side", () => {
  it("keep their own netlify-cli folders: the first answers every request while the second starts", async () => {
    const first = await startNetlifyDev();
    servers.push(first);
    const where = [join(first.workDir, ".netlify"), join(packageRoot, ".netlify")];
    const before = servedModules(...where);
    expect(before.size).toBeGreaterThan(0);

    const second = startNetlifyDev().then((server) => servers.push(server));
    const statuses = await functionStatusesUntil(first.baseUrl, second);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    const after = servedModules(...where);
    for (const [path, written] of before) expect({ path, written: after.get(path) }).toEqual({ path, written });
  }, 600_000);
});

// Years of use: 10,000 live grants in the real local Blobs server (an MCP host that reconnected
// daily, a few phones, a feed reader). The owner's console costs what it shows, not what is
// stored; revoke-all ends every one of them at once; token checks do not notice any of it.
import { beforeAll, describe, expect, it } from "vitest";
import type { AccountOverview } from "../../netlify/lib/pages/account-view.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { consoleGet, consolePost, consoleSignIn } from "../helpers/console.ts";
import { OperationCounter, OPERATION_KINDS, type OperationCounts } from "../helpers/counting-store.ts";
import { introspect, postToken } from "../helpers/endpoints.ts";
import { inBatches, seedGrants, type SeededGrant } from "../helpers/seed-grants.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const APPS = {
  "https://mcp-host.example/": 9_000,
  "https://phone.example/": 600,
  "https://reader.example/": 300,
  "https://quill.example/": 100,
};
const total = (ops: OperationCounts) => OPERATION_KINDS.reduce((sum, kind) => sum + ops[kind], 0);

let rt: TestRuntime;
let grants: SeededGrant[];
let cookie: string;
const counter = new OperationCounter();

beforeAll(async () => {
  rt = await testRuntime({ wrapStore: (store) => counter.wrap(store) });
  grants = await seedGrants(blobStore(rt.storeName), "https://jane.example/", APPS, rt.clock.now);
  cookie = await consoleSignIn(rt);
}, 120_000);

async function active(token: string): Promise<boolean> {
  const response = await introspect(rt, token);
  expect(response.status).toBe(200);
  return ((await response.json()) as { active: boolean }).active;
}

describe("10,000 live grants", () => {
  it("the console answers 200 with every app and its grant count, in at most 50 storage operations", async () => {
    counter.reset();
    const response = await consoleGet(rt, { cookie });
    const ops = counter.snapshot();
    expect(response.status).toBe(200);
    const view = (await response.json()) as AccountOverview;
    expect(Object.fromEntries(view.apps.map((app) => [app.clientId, app.grants]))).toEqual(APPS);
    expect(total(ops)).toBeLessThanOrEqual(50);
  });

  it("a token check is one round trip: the grant, and the revocations beside it", async () => {
    counter.reset();
    expect(await active(grants[4321]!.accessToken)).toBe(true);
    expect(counter.snapshot()).toMatchObject({ reads: 2, lists: 0, deletes: 0 });
  });

  it("Revoke all answers at once, and then every one of the 10,000 tokens introspects inactive", async () => {
    counter.reset();
    const response = await consolePost(rt, "/revoke", { app: "all" }, { cookie });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, revoked: 4 });
    expect(total(counter.snapshot())).toBeLessThanOrEqual(50);

    const stillActive = (await inBatches(grants, 100, (grant) => active(grant.accessToken))).filter(Boolean);
    expect(stillActive).toEqual([]);
    const refresh = await postToken(rt, {
      grant_type: "refresh_token",
      refresh_token: grants[0]!.refreshToken,
      client_id: grants[0]!.clientId,
    });
    expect(refresh.status).toBe(400);
    expect(((await (await consoleGet(rt, { cookie })).json()) as AccountOverview).apps).toEqual([]);
  }, 120_000);
});

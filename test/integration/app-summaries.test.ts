// The console's apps come from one summary per app, kept current as grants are created,
// refreshed and revoked; grants stored before summaries existed are counted at the first
// console load after upgrading; revoking one app ends every grant it holds at once; the
// history comes a page at a time.
import { describe, expect, it } from "vitest";
import type { AccountOverview } from "../../netlify/lib/pages/account-view.ts";
import { blobStore } from "../../netlify/lib/platform/store.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { appIdOf } from "../../netlify/lib/protocol/revocations.ts";
import { heldStore } from "../helpers/held-store.ts";
import { recordSignInEvent } from "../../netlify/lib/owner/sign-in-events.ts";
import { consoleGet, consolePost, consoleSignIn } from "../helpers/console.ts";
import { endpoints, introspect, postToken, revoke, signInForCode } from "../helpers/endpoints.ts";
import { CLIENT_ID, codeForm, post, refreshForm } from "../helpers/requests.ts";
import { inBatches, seedGrants } from "../helpers/seed-grants.ts";
import { tokensFor } from "../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const ME = "https://jane.example/";
const MINUTE = 60_000;

async function overview(rt: TestRuntime, cookie: string): Promise<AccountOverview> {
  const response = await consoleGet(rt, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as AccountOverview;
}

const grantCounts = (view: AccountOverview) => Object.fromEntries(view.apps.map((app) => [app.clientId, app.grants]));

async function active(rt: TestRuntime, token: string): Promise<boolean> {
  return ((await (await introspect(rt, token)).json()) as { active: boolean }).active;
}

describe("app summaries", () => {
  it("count an app's live grants through sign-in, refresh and revocation by the app", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    const second = await tokensFor(rt);
    const cookie = await consoleSignIn(rt);
    expect(grantCounts(await overview(rt, cookie))).toEqual({ [CLIENT_ID]: 2 });

    rt.clock.advance(MINUTE);
    expect((await postToken(rt, refreshForm(first.refresh_token))).status).toBe(200);
    const refreshed = await overview(rt, cookie);
    expect(grantCounts(refreshed)).toEqual({ [CLIENT_ID]: 2 });
    expect(refreshed.apps[0]!.lastUsedAt).toBe(rt.clock.now);

    expect((await revoke(rt, { token: second.access_token })).status).toBe(200);
    expect(grantCounts(await overview(rt, cookie))).toEqual({ [CLIENT_ID]: 1 });
  });

  it("count every one of twelve redemptions of one app that arrive at once (an agent opening sessions)", async () => {
    const rt = await testRuntime();
    const codes = [];
    for (let i = 0; i < 12; i++) codes.push(await signInForCode(rt));
    const answers = await Promise.all(codes.map((code) => postToken(rt, codeForm(code))));
    expect(answers.map((answer) => answer.status)).toEqual(codes.map(() => 200));
    expect(grantCounts(await overview(rt, await consoleSignIn(rt)))).toEqual({ [CLIENT_ID]: 12 });
  });

  it("a code's redemption writes its grant and its app's change in one round trip, and counts it in the summary after the answer", async () => {
    // Both writes are held until both have begun: a redemption that wrote one after the other
    // would never answer. The summary's first read is held too: the answer comes before it.
    const rt = await testRuntime();
    const { code, verifier } = await signInForCode(rt);
    const held = heldStore(rt.store);
    const grant = held.hold("setIfNew", { prefix: RECORDS.grant.prefix }, "before");
    const change = held.hold("setIfNew", { prefix: RECORDS.appChange.prefix }, "before");
    const summary = held.hold("getVersioned", RECORDS.appSummary.key(appIdOf(CLIENT_ID)), "before");
    const afterAnswer: Promise<unknown>[] = [];
    const redeemed = endpoints.token(
      post("/token", codeForm({ code, verifier })),
      { ...rt, store: held.store },
      { waitUntil: (work) => afterAnswer.push(work) },
    );
    await Promise.all([grant.reached, change.reached]);
    grant.release();
    change.release();
    expect((await redeemed).status).toBe(200);
    await summary.reached;
    expect(await rt.store.get(RECORDS.appSummary.key(appIdOf(CLIENT_ID)))).toBeNull();
    summary.release();
    await Promise.all(afterAnswer);
    expect(await rt.store.get(RECORDS.appSummary.key(appIdOf(CLIENT_ID)))).toMatchObject({
      liveByDay: { [String(Math.floor((rt.clock.now + 90 * 24 * 60 * MINUTE) / (24 * 60 * MINUTE)))]: 1 },
    });
    const cookie = await consoleSignIn(rt);
    expect(grantCounts(await overview(rt, cookie))).toEqual({ [CLIENT_ID]: 1 });
  });

  it("Revoke on one app ends every one of its 300 grants at once and leaves the other app alone", async () => {
    const rt = await testRuntime();
    const grants = await seedGrants(
      blobStore(rt.storeName),
      ME,
      { "https://mcp.example/": 300, "https://other.example/": 2 },
      rt.clock.now,
    );
    const cookie = await consoleSignIn(rt);
    const mcp = (await overview(rt, cookie)).apps.find((app) => app.clientId === "https://mcp.example/")!;
    rt.clock.advance(1);
    expect(await (await consolePost(rt, "/revoke", { app: mcp.id }, { cookie })).json()).toEqual({
      ok: true,
      revoked: 1,
    });

    const states = await inBatches(
      grants,
      50,
      async (grant) => [grant.clientId, await active(rt, grant.accessToken)] as const,
    );
    expect(states.filter(([client, live]) => client === "https://mcp.example/" && live)).toEqual([]);
    expect(states.filter(([client, live]) => client === "https://other.example/" && live)).toHaveLength(2);
    expect(grantCounts(await overview(rt, cookie))).toEqual({ "https://other.example/": 2 });
    // The app may sign in again: its new grant lives.
    rt.clock.advance(1);
    const again = await tokensFor(rt);
    expect(await active(rt, again.access_token)).toBe(true);
  });
});

describe("the sign-in history, a page at a time", () => {
  it("shows the newest fifty, and /history?before= the older ones, none lost; a forged cursor is a 400", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const day = 24 * 60 * MINUTE;
    for (let i = 0; i < 60; i++) {
      const at = rt.clock.now - (1 + (i % 20)) * day - Math.floor(i / 20) * MINUTE;
      expect(
        await recordSignInEvent(rt.store, {
          at,
          ip: "203.0.113.9",
          where: "account",
          method: "password",
          outcome: "success",
        }),
      ).toBe(true);
    }
    const first = await overview(rt, cookie);
    expect(first.events).toHaveLength(50);
    expect(first.moreEvents).toEqual(expect.any(String));
    const next = await consoleGet(rt, { cookie }, `/history?before=${encodeURIComponent(first.moreEvents!)}`);
    expect(next.status).toBe(200);
    const page = (await next.json()) as { events: { at: number }[]; before?: string };
    expect(page.before).toBeUndefined();
    const seen = new Set([...first.events, ...page.events].map((e) => e.at));
    expect(seen.size).toBe(61);

    const forged = await consoleGet(rt, { cookie }, "/history?before=../codes/x");
    expect(forged.status).toBe(400);
    expect(forged.headers.get("cache-control")).toBe("no-store");
  });
});

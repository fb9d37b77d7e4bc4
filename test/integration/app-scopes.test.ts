// What an app holds, as the owner's console shows it: every scope of its live grants, each once
// (issue 33: an app's earlier `create` grant looked gone once it signed in again for `profile`).
// A grant's scopes leave when it expires or is revoked, and move with it when it is refreshed.
import { describe, expect, it } from "vitest";
import type { AccountOverview, AppView } from "../../netlify/lib/pages/account-view.ts";
import { consoleGet, consoleSignIn } from "../helpers/console.ts";
import { postToken, revoke, signInForCode } from "../helpers/endpoints.ts";
import { CLIENT_ID, codeForm, refreshForm, type Tokens } from "../helpers/requests.ts";
import { tokensFor } from "../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const DAY = 24 * 60 * 60 * 1000;

/** The app as the console's API shows it (a fresh console sign-in: the clock moves by months). */
async function shownApp(rt: TestRuntime): Promise<AppView | undefined> {
  const response = await consoleGet(rt, { cookie: await consoleSignIn(rt) });
  expect(response.status).toBe(200);
  return ((await response.json()) as AccountOverview).apps.find((app) => app.clientId === CLIENT_ID);
}

/** The scopes shown, and how many grants hold each; read twice: beside the changes waiting,
 * and after the first load folded them into the summary. */
async function heldShown(
  rt: TestRuntime,
): Promise<{ scopes: string[]; scopeGrants: Record<string, number>; grants: number }> {
  const waiting = await shownApp(rt);
  const folded = await shownApp(rt);
  expect(folded).toEqual(waiting);
  return { scopes: [...folded!.scopes].sort(), scopeGrants: folded!.scopeGrants, grants: folded!.grants };
}

describe("an app's scopes in the console", () => {
  it("an earlier `create` grant still shows beside a later `profile` one, and leaves when its token is revoked", async () => {
    const rt = await testRuntime();
    const create = await tokensFor(rt, "create");
    rt.clock.advance(DAY);
    await tokensFor(rt, "profile");
    expect(await heldShown(rt)).toEqual({
      scopes: ["create", "profile"],
      scopeGrants: { create: 1, profile: 1 },
      grants: 2,
    });

    expect((await revoke(rt, { token: create.refresh_token })).status).toBe(200);
    expect(await heldShown(rt)).toEqual({ scopes: ["profile"], scopeGrants: { profile: 1 }, grants: 1 });
  });

  it("an expired grant's scopes leave on their own; a refreshed grant's stay with it", async () => {
    const rt = await testRuntime();
    await tokensFor(rt, "create");
    const media = await tokensFor(rt, "media");
    rt.clock.advance(60 * DAY);
    await tokensFor(rt, "profile");
    const refreshed = await postToken(rt, refreshForm(media.refresh_token));
    expect(refreshed.status).toBe(200);
    expect((await heldShown(rt)).scopes).toEqual(["create", "media", "profile"]);

    // Past the end of the day the first two grants expired on (90 days): `create` is gone, and
    // `media`, refreshed at day 60, lives on to day 150.
    rt.clock.advance(32 * DAY);
    expect(await heldShown(rt)).toEqual({
      scopes: ["media", "profile"],
      scopeGrants: { media: 1, profile: 1 },
      grants: 2,
    });
  });

  it("twelve redemptions of one app at once, then six revocations at once: each scope counted by the grants holding it", async () => {
    const rt = await testRuntime();
    const codes = [];
    for (let i = 0; i < 12; i++) codes.push(await signInForCode(rt, i % 2 === 0 ? "create" : "profile"));
    const answers = await Promise.all(codes.map((code) => postToken(rt, codeForm(code))));
    expect(answers.map((answer) => answer.status)).toEqual(codes.map(() => 200));
    const tokens = await Promise.all(answers.map(async (answer) => (await answer.json()) as Tokens));
    expect(await heldShown(rt)).toEqual({
      scopes: ["create", "profile"],
      scopeGrants: { create: 6, profile: 6 },
      grants: 12,
    });

    const creates = tokens.filter((_, i) => i % 2 === 0);
    const revoked = await Promise.all(creates.map((t) => revoke(rt, { token: t.access_token })));
    expect(revoked.map((r) => r.status)).toEqual(creates.map(() => 200));
    expect(await heldShown(rt)).toEqual({ scopes: ["profile"], scopeGrants: { profile: 6 }, grants: 6 });
  });

  it("holds at most 64 scopes and then says there are more; a scope named like an object's property is a scope like any other", async () => {
    const rt = await testRuntime();
    const named = (prefix: string) => Array.from({ length: 32 }, (_, i) => `${prefix}${i}`);
    await tokensFor(rt, ["__proto__", ...named("a").slice(1)].join(" "));
    await tokensFor(rt, named("b").join(" "));
    const full = await shownApp(rt);
    expect(full!.scopes).toHaveLength(64);
    expect(full!.scopes).toContain("__proto__");
    expect(Object.hasOwn(full!.scopeGrants, "__proto__")).toBe(true);
    expect(full!.moreScopes).toBeUndefined();

    await tokensFor(rt, "c0 create");
    const over = await shownApp(rt);
    expect(over!.scopes).toHaveLength(64);
    expect(over!.moreScopes).toBe(true);
  });
});

// The owner console where the server shares the blog's origin (the build plugin on the blog's own
// host, without an auth host of its own): every script on the blog holds the owner's session
// there, so cutting off apps and other devices takes the password or a passkey again, as passkey
// changes do everywhere. Elsewhere the session alone does it, as before.
import { describe, expect, it } from "vitest";
import { consoleGet, consolePost, consoleSignIn } from "../helpers/console.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { expectOAuthError, introspection, tokensFor } from "../helpers/tokens.ts";
import type { AccountOverview } from "../../netlify/lib/pages/account-view.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

function sharedOrigin(): Promise<TestRuntime> {
  return testRuntime({ build: "plugin" });
}

async function overview(rt: TestRuntime, cookie: string): Promise<AccountOverview> {
  const response = await consoleGet(rt, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as AccountOverview;
}

describe("sharing the blog's origin, a session alone cuts nothing off", () => {
  it("the console is told to ask first", async () => {
    const rt = await sharedOrigin();
    expect((await overview(rt, await consoleSignIn(rt))).confirmChanges).toBe(true);
    const standalone = await testRuntime();
    expect((await overview(standalone, await consoleSignIn(standalone))).confirmChanges).toBe(false);
  });

  it("Revoke all, and Revoke one app (which a script could repeat for each), are refused without the password; every token stays live", async () => {
    const rt = await sharedOrigin();
    const tokens = await tokensFor(rt);
    const cookie = await consoleSignIn(rt);
    const app = (await overview(rt, cookie)).apps[0]!.id;
    for (const target of ["all", app]) {
      await expectOAuthError(await consolePost(rt, "/revoke", { app: target }, { cookie }), 400, "invalid_request");
      await expectOAuthError(
        await consolePost(rt, "/revoke", { app: target, password: "a guess" }, { cookie }),
        401,
        "wrong_credentials",
      );
    }
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
    const confirmed = await consolePost(rt, "/revoke", { app: "all", password: TEST_PASSWORD }, { cookie });
    expect(await confirmed.json()).toEqual({ ok: true, revoked: 1 });
    expect(await introspection(rt, tokens.access_token)).toEqual({ active: false });
  });

  it("Sign out everywhere, and signing another device out, are refused without the password; every session stays", async () => {
    const rt = await sharedOrigin();
    const laptop = await consoleSignIn(rt, { remember: true });
    const phone = await consoleSignIn(rt, { remember: true, ip: "192.0.2.55" });
    const phoneId = (await overview(rt, laptop)).devices.find((d) => !d.current)!.id;
    for (const device of ["all", phoneId]) {
      const response = await consolePost(rt, "/sign-out", { device }, { cookie: laptop });
      await expectOAuthError(response, 400, "invalid_request");
      expect(response.headers.get("set-cookie")).toBeNull();
    }
    expect(await rt.store.list(RECORDS.session.prefix)).toHaveLength(2);
    expect((await consoleGet(rt, { cookie: phone })).status).toBe(200);

    const everywhere = await consolePost(
      rt,
      "/sign-out",
      { device: "all", password: TEST_PASSWORD },
      { cookie: laptop },
    );
    expect(everywhere.status).toBe(200);
    expect((await consoleGet(rt, { cookie: phone })).status).toBe(401);
    expect(await rt.store.list(RECORDS.session.prefix)).toEqual([]);
  });

  it("signing this device out needs nothing more", async () => {
    const rt = await sharedOrigin();
    const cookie = await consoleSignIn(rt);
    const response = await consolePost(rt, "/sign-out", {}, { cookie });
    expect(response.status).toBe(200);
    expect((await consoleGet(rt, { cookie })).status).toBe(401);
  });
});

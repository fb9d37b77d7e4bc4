// The owner console's API, in-process against the real local Blobs server: signing in, what
// it shows, revoking apps (their tokens die at once), signing devices out, and refusing
// anything that does not come from its own page with a live session.
import { describe, expect, it } from "vitest";
import type { AccountOverview, AccountSessionView, LoginRequiredView } from "../../netlify/lib/pages/account-view.ts";
import { THROTTLE_POLICY } from "../../netlify/lib/core/policy.ts";
import { consoleGet, consolePost, consoleSignIn, cookieFrom, passkeysPost } from "../helpers/console.ts";
import { approve, postToken, signedRequest } from "../helpers/endpoints.ts";
import {
  authorizationParams,
  CHROME_UA,
  CLIENT_ID,
  codeForm,
  CONSOLE_IP,
  pkcePair,
  redirectParams,
  type Tokens,
} from "../helpers/requests.ts";
import { introspection } from "../helpers/tokens.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

async function overview(rt: TestRuntime, cookie: string): Promise<AccountOverview> {
  const response = await consoleGet(rt, { cookie });
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as AccountOverview;
}

/** An app signs in (with its name and logo) and gets tokens. */
async function authoriseApp(rt: TestRuntime, clientId = CLIENT_ID, scope = "profile create"): Promise<Tokens> {
  const redirectUri = new URL("/callback", clientId).href;
  const { verifier, challenge } = pkcePair();
  const discover = rt.discover;
  rt.discover = async (id) => ({
    clientId: id.href,
    redirectUris: [],
    fetched: true,
    name: `App at ${id.host}`,
    logoUri: `${id.origin}/logo.png`,
  });
  try {
    const request = await signedRequest(
      rt,
      authorizationParams({ client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, scope }),
    );
    const response = await approve(rt, request, { scopes: scope.split(" ") });
    const code = redirectParams(response).get("code")!;
    const tokens = await postToken(
      rt,
      codeForm({ code, verifier }, { client_id: clientId, redirect_uri: redirectUri }),
    );
    expect(tokens.status).toBe(200);
    return (await tokens.json()) as Tokens;
  } finally {
    rt.discover = discover;
  }
}

describe("signing in to the console", () => {
  it("without a session, every read answers 401 login_required with the ways to sign in", async () => {
    const rt = await testRuntime();
    const response = await consoleGet(rt);
    expect(response.status).toBe(401);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as LoginRequiredView;
    expect(body).toMatchObject({ error: "login_required", signIn: { password: true, passkey: false } });
    expect(JSON.stringify(body)).not.toContain("apps");
  });

  it("the page's first question, /session, answers 200 either way: the ways to sign in, or the overview", async () => {
    const rt = await testRuntime();
    const signedOut = await consoleGet(rt, {}, "/session");
    expect(signedOut.status).toBe(200);
    expect(signedOut.headers.get("cache-control")).toBe("no-store");
    expect(await signedOut.json()).toEqual({ signedIn: false, signIn: { password: true, passkey: false } });

    const cookie = await consoleSignIn(rt);
    const signedIn = await consoleGet(rt, { cookie }, "/session");
    expect(signedIn.status).toBe(200);
    const view = (await signedIn.json()) as AccountSessionView;
    expect(view).toEqual({ signedIn: true, account: await overview(rt, cookie) });
    // The API itself still refuses without a session.
    expect((await consoleGet(rt)).status).toBe(401);
  });

  it("a wrong password is refused and recorded; the right one sets the session cookie", async () => {
    const rt = await testRuntime();
    const wrong = await consolePost(rt, "/sign-in", { password: "nope", remember: "true" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ error: "wrong_credentials" });
    expect(wrong.headers.get("set-cookie")).toBeNull();

    rt.clock.advance(1000);
    const right = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD, remember: "true" });
    expect(right.status).toBe(200);
    expect(right.headers.get("set-cookie")).toMatch(/^__Secure-indieauth_session=.+Max-Age=2592000/i);

    const events = (await overview(rt, cookieFrom(right))).events;
    expect(events.map((e) => [e.where, e.method, e.outcome])).toEqual([
      ["account", "password", "success"],
      ["account", "password", "failure"],
    ]);
    expect(events[1]).toMatchObject({ ip: CONSOLE_IP, reason: "wrong password" });
  });

  it("without 'Keep me signed in' the cookie ends with the browser (no Max-Age) and the record within a day", async () => {
    const rt = await testRuntime();
    const response = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD, remember: "false" });
    // (The known-device cookie beside it is meant to last: see owner-lockout.test.ts.)
    expect(response.headers.getSetCookie().find((c) => c.includes("indieauth_session="))).not.toMatch(/max-age/i);
    const cookie = cookieFrom(response);
    const [device] = (await overview(rt, cookie)).devices;
    expect(device).toMatchObject({ current: true, persistent: false });
    rt.clock.advance(13 * 60 * 60 * 1000);
    expect((await consoleGet(rt, { cookie })).status).toBe(401);
  });

  it("is throttled like the sign-in page, across both", async () => {
    const rt = await testRuntime();
    for (let i = 0; i < THROTTLE_POLICY.freeFailuresPerIp; i++) {
      await approve(rt, await signedRequest(rt), { password: "wrong", ip: CONSOLE_IP });
    }
    const throttled = await consolePost(rt, "/sign-in", { password: "still wrong", remember: "false" });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    // Even the right password waits out the pause.
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD, remember: "false" })).status).toBe(429);
  });
});

describe("what the console shows", () => {
  it("the authorised apps with name, logo, client_id, scopes and dates; the devices; the history", async () => {
    const rt = await testRuntime();
    await authoriseApp(rt, "https://quill.example/", "profile create");
    rt.clock.advance(60_000);
    await authoriseApp(rt, "https://notes.example/", "create update");
    const cookie = await consoleSignIn(rt, { remember: true });

    const view = await overview(rt, cookie);
    expect(view.me).toBe("https://jane.example/");
    expect(view.passwordLogin).toBe(true);
    expect(view.apps.map((a) => a.clientId).sort()).toEqual(["https://notes.example/", "https://quill.example/"]);
    const quill = view.apps.find((a) => a.clientId === "https://quill.example/")!;
    expect(quill).toMatchObject({ name: "App at quill.example", scopes: ["profile", "create"] });
    // The logo comes through this server's signed path, never from the app's own host.
    expect(quill?.logoUri).toMatch(/^\/auth\/logo\?src=https%3A%2F%2Fquill\.example%2Flogo\.png&sig=/);
    expect(quill.expiresAt).toBeGreaterThan(quill.createdAt);
    expect(JSON.stringify(view.apps)).not.toMatch(/hash|iat_|irt_/);

    expect(view.devices).toEqual([
      expect.objectContaining({
        current: true,
        label: "Chrome on Linux",
        ip: CONSOLE_IP,
        method: "password",
        persistent: true,
      }),
    ]);
    expect(view.events.filter((e) => e.where === "authorization").map((e) => e.clientId)).toEqual([
      "https://notes.example/",
      "https://quill.example/",
    ]);
    expect(view.passkeys).toEqual([]);
  });

  it("an app's last use follows its token's use", async () => {
    const rt = await testRuntime();
    const tokens = await authoriseApp(rt);
    rt.clock.advance(10 * 60_000);
    await introspection(rt, tokens.access_token);
    const cookie = await consoleSignIn(rt);
    expect((await overview(rt, cookie)).apps[0]!.lastUsedAt).toBe(rt.clock.now);
  });
});

describe("revoking from the console", () => {
  it("Revoke makes that app's access token introspect as inactive at once, and its refresh token useless", async () => {
    const rt = await testRuntime();
    const quill = await authoriseApp(rt, "https://quill.example/");
    const notes = await authoriseApp(rt, "https://notes.example/");
    const cookie = await consoleSignIn(rt);
    const app = (await overview(rt, cookie)).apps.find((a) => a.clientId === "https://quill.example/")!;

    const response = await consolePost(rt, "/revoke", { app: app.id }, { cookie });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, revoked: 1 });

    expect(await introspection(rt, quill.access_token)).toEqual({ active: false });
    const refresh = await postToken(rt, {
      grant_type: "refresh_token",
      refresh_token: quill.refresh_token,
      client_id: "https://quill.example/",
    });
    expect(refresh.status).toBe(400);
    // The other app is untouched, and the list no longer shows the revoked one.
    expect(await introspection(rt, notes.access_token)).toMatchObject({ active: true });
    expect((await overview(rt, cookie)).apps.map((a) => a.clientId)).toEqual(["https://notes.example/"]);
  });

  it("Revoke all ends every app's tokens", async () => {
    const rt = await testRuntime();
    const apps = [await authoriseApp(rt, "https://quill.example/"), await authoriseApp(rt, "https://notes.example/")];
    const cookie = await consoleSignIn(rt);
    expect(await (await consolePost(rt, "/revoke", { app: "all" }, { cookie })).json()).toEqual({
      ok: true,
      revoked: 2,
    });
    for (const tokens of apps) expect(await introspection(rt, tokens.access_token)).toEqual({ active: false });
    expect((await overview(rt, cookie)).apps).toEqual([]);
  });

  it("an unknown app answers 404 and writes nothing", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const before = await rt.store.list(RECORDS.grant.prefix);
    for (const app of ["AAAAAAAAAAAAAAAAAAAAAA", "../sessions/x", ""]) {
      const response = await consolePost(rt, "/revoke", { app }, { cookie });
      // An empty app is a malformed request (400); an app that holds no token is not found (404).
      expect([response.status, (await response.json()).error]).toEqual(
        app === "" ? [400, "invalid_request"] : [404, "not_found"],
      );
    }
    expect(await rt.store.list(RECORDS.grant.prefix)).toEqual(before);
  });
});

describe("signed-in devices", () => {
  it("Sign out on another device ends that session only", async () => {
    const rt = await testRuntime();
    const laptop = await consoleSignIn(rt, { remember: true });
    const phone = await consoleSignIn(rt, { remember: true, ip: "192.0.2.55" });
    const devices = (await overview(rt, laptop)).devices;
    expect(devices).toHaveLength(2);
    const phoneDevice = devices.find((d) => !d.current)!;
    expect(phoneDevice.ip).toBe("192.0.2.55");

    const response = await consolePost(rt, "/sign-out", { device: phoneDevice.id }, { cookie: laptop });
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect((await consoleGet(rt, { cookie: phone })).status).toBe(401);
    expect((await overview(rt, laptop)).devices.map((d) => d.current)).toEqual([true]);
  });

  it("Sign out everywhere ends every session, this one included", async () => {
    const rt = await testRuntime();
    const laptop = await consoleSignIn(rt, { remember: true });
    const phone = await consoleSignIn(rt, { remember: true });
    const response = await consolePost(rt, "/sign-out", { device: "all" }, { cookie: laptop });
    expect(response.headers.get("set-cookie")).toMatch(/Max-Age=0/i);
    expect((await consoleGet(rt, { cookie: laptop })).status).toBe(401);
    expect((await consoleGet(rt, { cookie: phone })).status).toBe(401);
    expect(await rt.store.list(RECORDS.session.prefix)).toEqual([]);
  });
});

describe("the console refuses what does not come from its own page with a live session", () => {
  const ACTIONS: [string, Record<string, string>][] = [
    ["/sign-out", { device: "all" }],
    ["/revoke", { app: "all" }],
    ["/passkeys/rename", { id: "x", name: "y" }],
    ["/passkeys/delete", { id: "x" }],
  ];

  it.each(ACTIONS)("%s cross-site, even with the cookie: 403, nothing changed", async (action, body) => {
    const rt = await testRuntime();
    const tokens = await authoriseApp(rt);
    const cookie = await consoleSignIn(rt, { remember: true });
    const response = await consolePost(rt, action, body, { cookie, crossSite: true });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: "access_denied" });
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
    expect((await consoleGet(rt, { cookie })).status).toBe(200);
  });

  it.each(ACTIONS)("%s without a session: 401, nothing changed", async (action, body) => {
    const rt = await testRuntime();
    const tokens = await authoriseApp(rt);
    const response = await consolePost(rt, action, body);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "login_required" });
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
  });

  it("a cross-site sign-in is refused before the password is looked at", async () => {
    const rt = await testRuntime();
    const response = await consolePost(
      rt,
      "/sign-in",
      { password: TEST_PASSWORD, remember: "true" },
      { crossSite: true },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await rt.store.list(RECORDS.signInEvent.prefix)).toEqual([]);
  });

  it("passkey registration cross-site or without a session is refused", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    expect(
      (await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie, crossSite: true }))
        .status,
    ).toBe(403);
    expect((await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD })).status).toBe(401);
  });

  it("unknown actions, wrong methods and bodies that are not JSON objects get standard errors", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    expect((await consolePost(rt, "/format-disk", {}, { cookie })).status).toBe(404);
    const { accountApi } = await import("../../netlify/lib/endpoints/account.ts");
    const call = (init: RequestInit, path = "/revoke") =>
      accountApi(new Request(`https://auth.jane.example/indieauth/api/account${path}`, init), rt, {
        ip: CONSOLE_IP,
        userAgent: CHROME_UA,
      });
    const same = { "Sec-Fetch-Site": "same-origin", Cookie: cookie, "Content-Type": "application/json" };
    for (const body of ["[1,2]", "not json", '{"app": 5}']) {
      const response = await call({ method: "POST", headers: same, body });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: "invalid_request" });
    }
    expect((await call({ method: "DELETE", headers: same })).status).toBe(405);
    expect((await call({ method: "POST", headers: same }, "")).status).toBe(405);
  });
});

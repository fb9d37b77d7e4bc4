// What a live session may approve on its own (owner/app-approvals.ts), in-process against the
// real local Blobs server: only an app the owner approved before with the password or a
// passkey, for a redirect URI approved then and no scope beyond it; never where the server
// shares the origin of the owner's site (added to the blog). Also: what the sign-in page
// offers lives inside the signed request, and revoking an app forgets its approval.
import { describe, expect, it } from "vitest";
import { consoleGet, consolePost, consoleSignIn, cookieFrom } from "../helpers/console.ts";
import { approve, authorize, postToken, signedRequest, signInForCode } from "../helpers/endpoints.ts";
import { authorizationParams, codeForm, decodePayload, offerIn, redirectParams } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import type { AppApproval } from "../../netlify/lib/owner/app-approvals.ts";
import { readSignInFragment, shownRequest } from "../../netlify/lib/pages/sign-in-fragment.ts";
import { sweepExpired } from "../../netlify/lib/platform/expiry-sweep.ts";

const DAY = 24 * 60 * 60 * 1000;

function fragmentOf(response: Response): URLSearchParams {
  return new URLSearchParams((response.headers.get("location") ?? "").split("#")[1]);
}

/** Approves the usual app with the password, "Keep me signed in" ticked; returns the cookie. */
async function approvedWithPassword(
  rt: TestRuntime,
  scope = "profile create",
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await approve(rt, await signedRequest(rt, authorizationParams({ scope })), {
    remember: true,
    scopes: scope.split(" "),
    headers,
  });
  expect(redirectParams(response).get("code")).toMatch(/^ic_/);
  return cookieFrom(response);
}

/** The approve step with the session cookie and no password, as the Approve-only page sends it. */
async function approveWithSession(
  rt: TestRuntime,
  cookie: string,
  scope: string,
  params: Record<string, string> = {},
): Promise<Response> {
  const request = await signedRequest(rt, authorizationParams({ scope, ...params }));
  return approve(rt, request, {
    password: null,
    headers: { Cookie: cookie },
    scopes: scope === "" ? [] : scope.split(" "),
  });
}

/** Sent back to the page to confirm with the password or a passkey, and no code issued. */
async function expectConfirmationAsked(rt: TestRuntime, response: Response, codesBefore: number): Promise<void> {
  expect(response.status).toBe(303);
  expect(fragmentOf(response).get("error")).toBe("confirm");
  expect(offerIn(response)).toMatchObject({ session: false, password: true });
  expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(codesBefore);
}

async function codeCount(rt: TestRuntime): Promise<number> {
  return (await rt.store.list(RECORDS.code.prefix)).length;
}

describe("a live session approves on its own only what the password or a passkey approved before", () => {
  it("an app never approved needs the password, even with a session; the page is told so", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt, { remember: true });
    const hand = await authorize(rt, authorizationParams(), { Cookie: cookie });
    expect(offerIn(hand)).toEqual({ session: false, passkey: false, password: true, signedIn: "new-app" });
    await expectConfirmationAsked(rt, await approveWithSession(rt, cookie, "profile create"), 0);
    // The password then approves it, and a session needs nothing more next time.
    expect(
      (await approve(rt, await signedRequest(rt), { headers: { Cookie: cookie }, scopes: ["profile", "create"] }))
        .status,
    ).toBe(302);
    expect((await approveWithSession(rt, cookie, "profile create")).status).toBe(302);
  });

  it("an app approved before, with the same or fewer scopes: Approve alone issues the code", async () => {
    const rt = await testRuntime();
    const cookie = await approvedWithPassword(rt, "profile create update");
    expect(
      offerIn(await authorize(rt, authorizationParams({ scope: "profile create update" }), { Cookie: cookie })),
    ).toEqual({ session: true });
    for (const scope of ["profile create update", "create", ""]) {
      const response = await approveWithSession(rt, cookie, scope);
      expect(response.status, scope).toBe(302);
      expect(redirectParams(response).get("code")).toMatch(/^ic_/);
    }
  });

  it("a wider scope than approved before needs the password; after it, the new scopes are what a session may approve", async () => {
    const rt = await testRuntime();
    const cookie = await approvedWithPassword(rt, "create");
    expect(
      offerIn(await authorize(rt, authorizationParams({ scope: "create delete" }), { Cookie: cookie })),
    ).toMatchObject({ session: false, signedIn: "new-app" });
    // Even when the page offered Approve alone for the narrower request, ticking more is refused.
    await expectConfirmationAsked(rt, await approveWithSession(rt, cookie, "create delete"), 1);
    const withPassword = await approve(rt, await signedRequest(rt, authorizationParams({ scope: "create delete" })), {
      headers: { Cookie: cookie },
      scopes: ["create", "delete"],
    });
    expect(withPassword.status).toBe(302);
    const approval = await rt.store.get<AppApproval>(RECORDS.appApproval.key("https://app.example.com/"));
    expect(approval).toMatchObject({
      clientId: "https://app.example.com/",
      resources: [{ scopes: ["create", "delete"] }],
      method: "password",
      expiresAt: rt.now() + 90 * DAY,
    });
    expect((await approveWithSession(rt, cookie, "create delete")).status).toBe(302);
  });

  it("another redirect URI of the same app needs the password", async () => {
    const rt = await testRuntime();
    const cookie = await approvedWithPassword(rt);
    await expectConfirmationAsked(
      rt,
      await approveWithSession(rt, cookie, "profile create", { redirect_uri: "https://app.example.com/elsewhere" }),
      1,
    );
  });

  it("an approval expires 90 days after the password gave it, and housekeeping then deletes it", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt, { remember: true });
    expect((await approve(rt, await signedRequest(rt), { scopes: ["profile"] })).status).toBe(302);
    rt.clock.advance(90 * DAY + 1000);
    // The console session is long gone too: a fresh one.
    const fresh = await consoleSignIn(rt, { remember: true });
    await expectConfirmationAsked(rt, await approveWithSession(rt, fresh, "profile"), 1);
    expect(cookie).not.toBe(fresh);
    await sweepExpired(rt.store, rt.now());
    expect(await rt.store.list(RECORDS.appApproval.prefix)).toEqual([]);
  });

  it("Revoke in the console forgets the app's approval: a session alone no longer approves it", async () => {
    const rt = await testRuntime();
    const cookie = await approvedWithPassword(rt);
    // The app redeems a code, so that it holds tokens the console lists.
    expect((await postToken(rt, codeForm(await signInForCode(rt, "profile create")))).status).toBe(200);
    const overview = (await (await consoleGet(rt, { cookie })).json()) as { apps: { id: string }[] };
    expect((await consolePost(rt, "/revoke", { app: overview.apps[0]!.id }, { cookie })).status).toBe(200);
    expect(await rt.store.list(RECORDS.appApproval.prefix)).toEqual([]);
    await expectConfirmationAsked(rt, await approveWithSession(rt, cookie, "profile create"), await codeCount(rt));
  });

  it("Revoke all forgets every approval", async () => {
    const rt = await testRuntime();
    const cookie = await approvedWithPassword(rt);
    expect(
      (
        await approve(
          rt,
          await signedRequest(
            rt,
            authorizationParams({ client_id: "https://other.example/", redirect_uri: "https://other.example/cb" }),
          ),
        )
      ).status,
    ).toBe(302);
    expect(await rt.store.list(RECORDS.appApproval.prefix)).toHaveLength(2);
    expect((await consolePost(rt, "/revoke", { app: "all" }, { cookie })).status).toBe(200);
    expect(await rt.store.list(RECORDS.appApproval.prefix)).toEqual([]);
  });
});

describe("a session alone approves again only for the resource approved before (RFC 8707), or its absence", () => {
  const readonly = "https://jane.example/mcp-readonly";
  const admin = "https://jane.example/mcp-admin";

  /** The usual app approved with the password for this resource (or none), "Keep me signed in". */
  async function approvedFor(
    rt: TestRuntime,
    resource: string | null,
    scope = "profile create",
    cookie?: string,
  ): Promise<string> {
    const request = await signedRequest(rt, authorizationParams({ scope, resource }));
    const response = await approve(rt, request, {
      remember: true,
      scopes: scope.split(" "),
      headers: cookie ? { Cookie: cookie } : {},
    });
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
    return cookie ?? cookieFrom(response);
  }

  /** What GET /auth offers a signed-in owner for this resource (or none). */
  async function offered(rt: TestRuntime, cookie: string, resource: string | null, scope = "profile create") {
    return offerIn(await authorize(rt, authorizationParams({ scope, resource }), { Cookie: cookie }));
  }

  it("approved for …/mcp-readonly: the page offers no Approve-alone for …/mcp-admin, and the session alone gets no code for it", async () => {
    const rt = await testRuntime();
    const cookie = await approvedFor(rt, readonly);
    expect(await offered(rt, cookie, readonly)).toEqual({ session: true });
    expect(await offered(rt, cookie, admin)).toEqual({
      session: false,
      passkey: false,
      password: true,
      signedIn: "new-app",
    });
    await expectConfirmationAsked(rt, await approveWithSession(rt, cookie, "profile create", { resource: admin }), 1);
    // The same resource again: Approve alone.
    expect(
      redirectParams(await approveWithSession(rt, cookie, "profile create", { resource: readonly })).get("code"),
    ).toMatch(/^ic_/);
  });

  it("a request without a resource is its own value: not covered by a resource's approval, and a resource not covered by an approval without one", async () => {
    const rt = await testRuntime();
    const cookie = await approvedFor(rt, readonly);
    expect(await offered(rt, cookie, null)).toMatchObject({ session: false, signedIn: "new-app" });
    await expectConfirmationAsked(rt, await approveWithSession(rt, cookie, "profile create"), 1);

    const other = await testRuntime();
    const cookieThere = await approvedFor(other, null);
    expect(await offered(other, cookieThere, null)).toEqual({ session: true });
    expect(await offered(other, cookieThere, readonly)).toMatchObject({ session: false, signedIn: "new-app" });
    await expectConfirmationAsked(
      other,
      await approveWithSession(other, cookieThere, "profile create", { resource: readonly }),
      1,
    );
  });

  it("each resource keeps the scopes approved there: a scope approved for one is not approved for another", async () => {
    const rt = await testRuntime();
    const cookie = await approvedFor(rt, readonly, "create");
    await approvedFor(rt, admin, "create delete", cookie);
    expect(await offered(rt, cookie, admin, "create delete")).toEqual({ session: true });
    expect(await offered(rt, cookie, readonly, "create")).toEqual({ session: true });
    expect(await offered(rt, cookie, readonly, "create delete")).toMatchObject({ session: false, signedIn: "new-app" });
    await expectConfirmationAsked(rt, await approveWithSession(rt, cookie, "create delete", { resource: readonly }), 2);
    const approval = await rt.store.get<AppApproval>(RECORDS.appApproval.key("https://app.example.com/"));
    expect(approval?.resources).toEqual([
      { resource: admin, scopes: ["create", "delete"] },
      { resource: readonly, scopes: ["create"] },
    ]);
  });

  it("keeps at most 10 resources, the most recent first", async () => {
    const rt = await testRuntime();
    const cookie = await approvedFor(rt, "https://jane.example/mcp-0");
    for (let i = 1; i <= 10; i++) await approvedFor(rt, `https://jane.example/mcp-${i}`, "profile create", cookie);
    const approval = await rt.store.get<AppApproval>(RECORDS.appApproval.key("https://app.example.com/"));
    expect(approval?.resources.map((entry) => entry.resource)).toEqual(
      Array.from({ length: 10 }, (_, i) => `https://jane.example/mcp-${10 - i}`),
    );
    expect(await offered(rt, cookie, "https://jane.example/mcp-0")).toMatchObject({ session: false });
    expect(await offered(rt, cookie, "https://jane.example/mcp-1")).toEqual({ session: true });
  });
});

describe("an app every user of a platform signs in as (a Client ID Metadata Document: claude.ai, chatgpt.com)", () => {
  // The same client_id and redirect URI for every account on the platform: a stranger starts a
  // sign-in on their own account there and sends the owner the link.
  const CLAUDE = "https://claude.example/oauth/mcp-oauth-client-metadata";
  const WEB = "https://claude.example/api/mcp/auth_callback";
  const CLI = "http://localhost/callback";
  const document: ClientInfo = {
    clientId: CLAUDE,
    redirectUris: [WEB, CLI],
    fetched: true,
    metadataDocument: true,
    name: "Claude",
  };
  const MCP = "https://jane.example/mcp";

  /** A runtime whose discovery reads the platform's document (or, `unread`, cannot this time). */
  function platform(state: { unread: boolean } = { unread: false }): Promise<TestRuntime> {
    return testRuntime({
      discover: async (clientId) =>
        clientId.href === CLAUDE && !state.unread
          ? { ...document }
          : { clientId: clientId.href, redirectUris: [], fetched: false },
    });
  }

  const request = (redirectUri: string, extra: Record<string, string> = {}) =>
    authorizationParams({ client_id: CLAUDE, redirect_uri: redirectUri, scope: "create", resource: MCP, ...extra });

  /** Approved with the password for this redirect URI, "Keep me signed in": the cookie. */
  async function approvedOnce(rt: TestRuntime, redirectUri: string): Promise<string> {
    const response = await approve(rt, await signedRequest(rt, request(redirectUri)), {
      remember: true,
      scopes: ["create"],
    });
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
    return cookieFrom(response);
  }

  async function sessionOnly(rt: TestRuntime, cookie: string, redirectUri: string): Promise<Response> {
    return approve(rt, await signedRequest(rt, request(redirectUri)), {
      password: null,
      headers: { Cookie: cookie },
      scopes: ["create"],
    });
  }

  it("approved before with the password, a new connection to its web address still needs it: the page says why, and the session alone gets no code", async () => {
    const rt = await platform();
    const cookie = await approvedOnce(rt, WEB);
    expect(decodePayload(await signedRequest(rt, request(WEB)))).toMatchObject({ clientRead: "metadata-document" });
    expect(offerIn(await authorize(rt, request(WEB), { Cookie: cookie }))).toEqual({
      session: false,
      passkey: false,
      password: true,
      signedIn: "shared-app",
    });
    await expectConfirmationAsked(rt, await sessionOnly(rt, cookie, WEB), 1);
    // prompt=none: the session could not approve it alone.
    expect(redirectParams(await authorize(rt, request(WEB, { prompt: "none" }), { Cookie: cookie })).get("error")).toBe(
      "login_required",
    );
    // The password (or a passkey) approves each new connection.
    expect(
      redirectParams(
        await approve(rt, await signedRequest(rt, request(WEB)), { headers: { Cookie: cookie }, scopes: ["create"] }),
      ).get("code"),
    ).toMatch(/^ic_/);
  });

  it("its loopback redirect URI (Claude Code on this device, any port) is tied to this device: a session approves again what the password approved", async () => {
    const rt = await platform();
    const cookie = await approvedOnce(rt, "http://localhost:50001/callback");
    const again = request("http://localhost:50002/callback");
    expect(offerIn(await authorize(rt, again, { Cookie: cookie }))).toEqual({ session: true });
    expect(redirectParams(await sessionOnly(rt, cookie, "http://localhost:50002/callback")).get("code")).toMatch(
      /^ic_/,
    );
  });

  it("its document unread this time (it could be any platform's): the session alone still approves nothing at a web address", async () => {
    const state = { unread: false };
    const rt = await platform(state);
    const cookie = await approvedOnce(rt, WEB);
    state.unread = true;
    const signed = await signedRequest(rt, request(WEB));
    expect(decodePayload(signed).clientRead).toBeUndefined();
    expect(offerIn(await authorize(rt, request(WEB), { Cookie: cookie }))).toMatchObject({
      session: false,
      signedIn: "shared-app",
    });
    await expectConfirmationAsked(rt, await sessionOnly(rt, cookie, WEB), 1);
  });

  it("the control: an IndieAuth app known by its own page is approved again by a session alone", async () => {
    const rt = await testRuntime();
    const cookie = await approvedWithPassword(rt);
    expect(decodePayload(await signedRequest(rt))).toMatchObject({ clientRead: "page" });
    expect(redirectParams(await approveWithSession(rt, cookie, "profile create")).get("code")).toMatch(/^ic_/);
  });
});

describe("added to the blog by the plugin (sharing the blog's origin), a session alone never approves", () => {
  const sharedOrigin = { ME: "https://jane.example/", BASE_URL: "https://jane.example" };

  it("even an app approved before with the password needs it again; the page is told why", async () => {
    const rt = await testRuntime({ env: sharedOrigin, build: "plugin" });
    const cookie = await approvedWithPassword(rt, "profile create", { Origin: "https://jane.example" });
    const hand = await authorize(rt, authorizationParams(), { Cookie: cookie });
    expect(offerIn(hand)).toEqual({ session: false, passkey: false, password: true, signedIn: "shared-origin" });
    // A script on the blog posts the form same-origin, with the owner's session: no code.
    const response = await approve(rt, await signedRequest(rt), {
      password: null,
      headers: { Cookie: cookie, Origin: "https://jane.example" },
      scopes: ["profile"],
    });
    expect(response.status).toBe(303);
    expect(fragmentOf(response).get("error")).toBe("confirm");
    expect(await codeCount(rt)).toBe(1);
  });

  it("the password still approves there", async () => {
    const rt = await testRuntime({ env: sharedOrigin, build: "plugin" });
    const response = await approve(rt, await signedRequest(rt), {
      headers: { Origin: "https://jane.example" },
      scopes: ["profile"],
    });
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
  });

  it("the build says so, not the addresses: BASE_URL on www. and ME on the apex are one blog, and a session alone still approves nothing", async () => {
    const rt = await testRuntime({
      env: { ME: "https://jane.example/", BASE_URL: "https://www.jane.example" },
      build: "plugin",
    });
    const cookie = await approvedWithPassword(rt, "profile create", { Origin: "https://www.jane.example" });
    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: cookie }))).toMatchObject({
      session: false,
      signedIn: "shared-origin",
    });
    const request = await signedRequest(rt, authorizationParams({ scope: "profile create" }));
    const response = await approve(rt, request, {
      password: null,
      headers: { Cookie: cookie, Origin: "https://www.jane.example" },
      scopes: ["profile", "create"],
    });
    expect(fragmentOf(response).get("error")).toBe("confirm");
    expect(await codeCount(rt)).toBe(1);
  });

  it("a deployment of its own whose ME is its own address (npm start) is no blog: a session approves what was approved before", async () => {
    const rt = await testRuntime({ env: { ME: "https://auth.jane.example/", BASE_URL: "https://auth.jane.example" } });
    const cookie = await approvedWithPassword(rt, "profile create");
    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: cookie }))).toEqual({ session: true });
    expect(redirectParams(await approveWithSession(rt, cookie, "profile create")).get("code")).toMatch(/^ic_/);
  });
});

describe("what the sign-in page offers is signed into the request", () => {
  it("an unsigned session=1 (or passkey=1, password=off) added to the page's address changes nothing", async () => {
    const rt = await testRuntime();
    const hand = await authorize(rt, authorizationParams());
    const tampered = `${hand.headers.get("location")!.split("#")[1]}&session=1&passkey=1&password=off`;
    const fragment = readSignInFragment(`#${tampered}`);
    expect(shownRequest(fragment.request)?.offer).toEqual({ session: false, passkey: false, password: true });
    // And the approve step, given no password, issues nothing.
    expect((await approve(rt, fragment.request, { password: null })).status).toBe(303);
    expect(await codeCount(rt)).toBe(0);
  });

  it("sent back to the page, the request is signed again with the new offer, and keeps its first expiry", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt, { remember: true });
    const first = fragmentOf(await authorize(rt, authorizationParams(), { Cookie: cookie })).get("request")!;
    rt.clock.advance(10 * 60 * 1000);
    await consolePost(rt, "/sign-out", {}, { cookie });
    const back = await approve(rt, first, { password: "", headers: { Cookie: cookie } });
    const again = fragmentOf(back).get("request")!;
    expect(again).not.toBe(first);
    expect(decodePayload(again).offer).toEqual({ session: false, passkey: false, password: true });
    expect(decodePayload(again).exp).toBe(decodePayload(first).exp);
    rt.clock.advance(5 * 60 * 1000 + 1000);
    expect((await approve(rt, again)).status).toBe(400);
  });
});

describe("an app's logo", () => {
  it("is never put before the owner's browser at the app's own address, approved or not: the page gets this server's path", async () => {
    const logo = "https://tracker.example/pixel.png";
    const rt = await testRuntime({
      discover: async (clientId) => ({
        clientId: clientId.href,
        redirectUris: [],
        fetched: true,
        name: "App",
        logoUri: logo,
      }),
    });
    const before = decodePayload(await signedRequest(rt));
    expect(before).toMatchObject({
      client: {
        name: "App",
        logoUri: expect.stringMatching(/^\/auth\/logo\?src=https%3A%2F%2Ftracker\.example%2Fpixel\.png&sig=/),
      },
    });
    await approvedWithPassword(rt);
    const after = decodePayload(await signedRequest(rt));
    expect((after.client as { logoUri: string }).logoUri).toBe((before.client as { logoUri: string }).logoUri);
    expect(JSON.stringify(after.client as object)).not.toContain('"https://tracker.example');
  });

  it("GET /auth reads the app's approval once, for the error-redirect trust and the offer", async () => {
    const approvalReads: string[] = [];
    const rt = await testRuntime({
      discover: async (clientId) => ({
        clientId: clientId.href,
        redirectUris: [],
        fetched: true,
        name: "App",
        logoUri: "https://app.example/logo.png",
      }),
      wrapStore: (store) => ({
        get: (key) => (key.startsWith(RECORDS.appApproval.prefix) && approvalReads.push(key), store.get(key)),
        getVersioned: (key) => store.getVersioned(key),
        set: (key, value) => store.set(key, value),
        setIfNew: (key, value) => store.setIfNew(key, value),
        setIfUnchanged: (key, value, version) => store.setIfUnchanged(key, value, version),
        delete: (key) => store.delete(key),
        list: (prefix) => store.list(prefix),
      }),
    });
    const cookie = await approvedWithPassword(rt);
    approvalReads.length = 0;
    // Signed in, approved before, with a logo, and an error that goes back to the client.
    const refused = await authorize(rt, authorizationParams({ code_challenge_method: "plain" }), { Cookie: cookie });
    expect(refused.headers.get("location")).toMatch(/^https:\/\/app\.example\.com\/callback\?error=invalid_request/);
    expect(approvalReads).toHaveLength(1);
    const signedIn = await authorize(rt, authorizationParams(), { Cookie: cookie });
    expect(decodePayload(fragmentOf(signedIn).get("request")!)).toMatchObject({
      client: { logoUri: expect.stringMatching(/^\/auth\/logo\?/) },
      unshownLogoUri: "https://app.example/logo.png",
    });
    expect(offerIn(signedIn)).toEqual({ session: true });
    expect(approvalReads).toHaveLength(2);
  });
});

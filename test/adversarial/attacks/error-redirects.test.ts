// Attack catalogue: the owner's domain as a redirector through error answers (RFC 9700 4.11.2).
// A site names itself as the client, publishes one `<link rel="redirect_uri">` line (or needs
// none: its own origin), and sends people to a sign-in link that fails on purpose; or to one
// that does not fail, where the person presses Deny. An error goes back by itself (302) only to
// a redirect URI the owner approved for the app before (a loopback one on any port), or this
// server's own self-test page; anywhere else, a page says what went wrong, with the way back as
// a link. A loopback URI is no exception: a stranger names it as freely as any other, and would
// have the owner's domain send the browser into the owner's own machine.
// And this server's own client (the self-test) may come back only to the self-test page, with
// at most `profile email`: added to a blog, every other page of its origin is a blog page.
import { describe, expect, it } from "vitest";
import type { ClientInfo } from "../../../netlify/lib/core/client-shape.ts";
import { rememberApproval } from "../../../netlify/lib/owner/app-approvals.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { approve, authorize, signedRequest } from "../../helpers/endpoints.ts";
import { authorizationParams, REDIRECT_URI } from "../../helpers/requests.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";

/** The client's fetched document publishes these redirect URIs. */
function publishing(...redirectUris: string[]) {
  return async (clientId: URL): Promise<ClientInfo> => ({
    clientId: clientId.href,
    redirectUris,
    fetched: true,
    name: "App",
  });
}

/** The owner approved this app, for this redirect URI, with the password. */
async function approvedBefore(rt: TestRuntime, clientId: string, redirectUri: string): Promise<void> {
  await rememberApproval(rt.store, { clientId, redirectUri, scopes: ["profile"], method: "password" }, rt.now());
}

/** A page that says what went wrong, with the way back as a link the person may follow. */
async function expectShownWithLink(response: Response, said: string, back: string): Promise<void> {
  expect(response.status).toBeGreaterThanOrEqual(400);
  expect(response.headers.get("location")).toBeNull();
  const html = await response.text();
  expect(html).toContain(said);
  expect(html).toContain("You were not sent back to the app automatically");
  expect(html).toContain(`href="${back}`);
}

describe("error answers: a site naming itself as the client", () => {
  const attack = (overrides: Record<string, string | null> = {}) =>
    authorizationParams({
      client_id: "https://evil.example/",
      redirect_uri: "https://evil.example/phish",
      state: "x",
      response_type: "nope",
      ...overrides,
    });
  const said = "response_type nope is not supported";
  const back = "https://evil.example/phish?error=unsupported_response_type";

  it("redirect_uri on the same site, a bad response_type: shown, not redirected", async () => {
    await expectShownWithLink(await authorize(await fastRuntime(), attack()), said, back);
  });

  it("the same when its fetched document publishes that very redirect URI (one <link rel=redirect_uri> line is not trust)", async () => {
    await expectShownWithLink(
      await authorize(await fastRuntime({ discover: publishing("https://evil.example/phish") }), attack()),
      said,
      back,
    );
  });

  it("the same on another origin that its document publishes", async () => {
    const rt = await fastRuntime({ discover: publishing("https://phish.example/landing") });
    await expectShownWithLink(
      await authorize(rt, attack({ redirect_uri: "https://phish.example/landing" })),
      said,
      "https://phish.example/landing?error=",
    );
  });

  it("any error, not only response_type: missing state, PKCE or a malformed scope", async () => {
    const errors: Record<string, string | null>[] = [
      { response_type: "code", code_challenge: null },
      { response_type: "code", scope: 'a"b' },
      { response_type: "code", state: null },
    ];
    for (const overrides of errors) {
      const response = await authorize(
        await fastRuntime({ discover: publishing("https://evil.example/phish") }),
        attack(overrides),
      );
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
  });

  it("the control: a redirect URI the owner approved for the app before is redirected to", async () => {
    const rt = await fastRuntime({ discover: publishing(REDIRECT_URI) });
    await approvedBefore(rt, "https://app.example.com/", REDIRECT_URI);
    const response = await authorize(rt, authorizationParams({ response_type: "nope", state: "x" }));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(
      /^https:\/\/app\.example\.com\/callback\?error=unsupported_response_type&/,
    );
  });
});

describe("error answers: a loopback redirect URI a stranger chose (a service on the owner's own machine)", () => {
  // The finding's request, word for word: nothing in it is the owner's.
  const reset = "http://127.0.0.1:8080/admin/reset?confirm=1";
  const stranger = `client_id=http://127.0.0.1:1/&redirect_uri=${encodeURIComponent(reset)}&response_type=token`;

  it("GET /auth with a bad request is shown, never redirected into the owner's machine", async () => {
    await expectShownWithLink(
      await authorize(await fastRuntime(), stranger),
      "response_type token is not supported",
      "http://127.0.0.1:8080/admin/reset?confirm=1&#38;error=unsupported_response_type",
    );
  });

  it("any other error too: missing PKCE, a malformed scope, prompt=none's login_required", async () => {
    const errors: Record<string, string | null>[] = [{ code_challenge: null }, { scope: 'a"b' }, { prompt: "none" }];
    for (const overrides of errors) {
      const params = authorizationParams({ client_id: "http://127.0.0.1:1/", redirect_uri: reset, ...overrides });
      const response = await authorize(await fastRuntime(), params);
      expect(response.status, JSON.stringify(overrides)).toBeGreaterThanOrEqual(400);
      expect(response.headers.get("location")).toBeNull();
    }
  });

  it("Deny on the sign-in page for it: a page with the way back as a link", async () => {
    const rt = await fastRuntime();
    const request = await signedRequest(
      rt,
      authorizationParams({ client_id: "http://127.0.0.1:1/", redirect_uri: reset }),
    );
    await expectShownWithLink(
      await approve(rt, request, { decision: "deny" }),
      "The owner denied the request",
      "http://127.0.0.1:8080/admin/reset?confirm=1&#38;error=access_denied",
    );
  });

  it("another app approved before on loopback lends it nothing: its approval is for its own client_id", async () => {
    const rt = await fastRuntime();
    await approvedBefore(rt, "http://127.0.0.1/", "http://127.0.0.1/admin/reset?confirm=1");
    const response = await authorize(
      rt,
      authorizationParams({ client_id: "http://127.0.0.1:1/", redirect_uri: reset, response_type: "token" }),
    );
    expect(response.headers.get("location")).toBeNull();
  });

  it("the control: a loopback redirect URI the owner approved for that app before is redirected to, on any port (RFC 8252 7.3), and only that one", async () => {
    const rt = await fastRuntime();
    await approvedBefore(rt, "http://127.0.0.1/", "http://127.0.0.1:50001/cb");
    const params = (redirectUri: string) =>
      authorizationParams({
        client_id: "http://127.0.0.1/",
        redirect_uri: redirectUri,
        response_type: "nope",
        state: "x",
      });
    const response = await authorize(rt, params("http://127.0.0.1:4567/cb"));
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(
      /^http:\/\/127\.0\.0\.1:4567\/cb\?error=unsupported_response_type&/,
    );
    await expectShownWithLink(
      await authorize(rt, params("http://127.0.0.1:4567/admin")),
      "response_type nope is not supported",
      "http://127.0.0.1:4567/admin?error=",
    );
    const denied = await approve(
      rt,
      await signedRequest(
        rt,
        authorizationParams({ client_id: "http://127.0.0.1/", redirect_uri: "http://127.0.0.1:4568/cb" }),
      ),
      { decision: "deny" },
    );
    expect(denied.headers.get("location")).toMatch(/^http:\/\/127\.0\.0\.1:4568\/cb\?error=access_denied&/);
  });
});

describe("error answers: Deny on the sign-in page", () => {
  it("an app never approved: Deny shows a page with the way back as a link, never a redirect", async () => {
    const rt = await fastRuntime({ discover: publishing("https://evil.example/phish") });
    const request = await signedRequest(
      rt,
      authorizationParams({ client_id: "https://evil.example/", redirect_uri: "https://evil.example/phish" }),
    );
    const response = await approve(rt, request, {
      decision: "deny",
      fields: { redirect_uri: "https://other.example/steal" },
    });
    await expectShownWithLink(
      response,
      "The owner denied the request",
      "https://evil.example/phish?error=access_denied",
    );
  });

  it("the control: an app approved before gets access_denied at its redirect URI, never at one from the form", async () => {
    const rt = await fastRuntime();
    await approvedBefore(rt, "https://app.example.com/", REDIRECT_URI);
    const response = await approve(rt, await signedRequest(rt), {
      decision: "deny",
      fields: { redirect_uri: "https://evil.example/steal" },
    });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toMatch(/^https:\/\/app\.example\.com\/callback\?error=access_denied&/);
  });
});

describe("this server's own client (the self-test)", () => {
  // Added to the blog: the server's origin is the blog's, every other path a blog page.
  const blog = { BASE_URL: "https://jane.example" };
  const ownParams = (overrides: Record<string, string | null>) =>
    authorizationParams({
      client_id: "https://jane.example/",
      redirect_uri: "https://jane.example/indieauth/self-test/",
      scope: "profile",
      ...overrides,
    });

  it.each([
    ["a blog page", "https://jane.example/2024/05/hello/"],
    ["the home page", "https://jane.example/"],
    ["the self-test page with a query", "https://jane.example/indieauth/self-test/?next=1"],
    ["another page of ours", "https://jane.example/indieauth/account/"],
  ])("any other page of its origin (%s) is refused, on a page, before anything is sent", async (_, redirectUri) => {
    const rt = await fastRuntime({ env: blog });
    const attempts: Record<string, string>[] = [
      { redirect_uri: redirectUri },
      { redirect_uri: redirectUri, response_type: "nope" },
    ];
    for (const overrides of attempts) {
      const response = await authorize(rt, ownParams(overrides));
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      expect(await response.text()).toContain("comes back only to https://jane.example/indieauth/self-test/");
    }
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("more than profile email is refused with invalid_scope, sent to the self-test page (one of ours)", async () => {
    const response = await authorize(await fastRuntime({ env: blog }), ownParams({ scope: "profile email create" }));
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe("https://jane.example/indieauth/self-test/");
    expect(location.searchParams.get("error")).toBe("invalid_scope");
  });

  it("the self-test itself goes on: its page, profile email", async () => {
    const response = await authorize(await fastRuntime({ env: blog }), ownParams({ scope: "profile email" }));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toMatch(/^\/indieauth\/sign-in\/#/);
  });
});

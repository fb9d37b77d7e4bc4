// Native apps on loopback (RFC 8252 7.3), in-process against the real local Blobs server: a
// loopback redirect URI comes back on whatever port the app's listener got, both when the
// client's document publishes it without that port and when the client_id is itself a loopback
// URL on another port. Everything else about the redirect URI stays exact: the host as written
// (127.0.0.1, [::1] and localhost are different hosts), the scheme, the path and the query.
import { describe, expect, it } from "vitest";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { approve, authorize, postToken, signedRequest } from "../helpers/endpoints.ts";
import { consoleSignIn } from "../helpers/console.ts";
import { authorizationParams, CLIENT_ID, codeForm, offerIn, pkcePair, redirectParams } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

/** Discovery that finds the app's document, publishing these redirect URIs. */
function publishing(...redirectUris: string[]): (clientId: URL) => Promise<ClientInfo> {
  return async (clientId) => ({ clientId: clientId.href, redirectUris, fetched: true, name: "Desktop app" });
}

/** GET /auth, approved with the password; the redirect back, and the code redeemed at /token. */
async function signInThrough(
  rt: TestRuntime,
  clientId: string,
  redirectUri: string,
): Promise<{ location: URL; token: Response }> {
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(
    rt,
    authorizationParams({ client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge }),
  );
  const approved = await approve(rt, request, { scopes: ["profile", "create"] });
  expect(approved.status).toBe(302);
  const location = new URL(approved.headers.get("location")!);
  const code = location.searchParams.get("code")!;
  const token = await postToken(rt, codeForm({ code, verifier }, { client_id: clientId, redirect_uri: redirectUri }));
  return { location, token };
}

async function expectRefused(rt: TestRuntime, clientId: string, redirectUri: string): Promise<void> {
  const response = await authorize(rt, authorizationParams({ client_id: clientId, redirect_uri: redirectUri }));
  expect(response.status).toBe(400);
  expect(response.headers.get("location")).toBeNull();
  expect(await response.text()).toMatch(/does not publish/);
}

describe("a published loopback redirect URI matches on any port", () => {
  it.each([
    ["127.0.0.1", "http://127.0.0.1/callback", "http://127.0.0.1:54321/callback"],
    ["[::1]", "http://[::1]/callback", "http://[::1]:61023/callback"],
    ["localhost", "http://localhost/callback", "http://localhost:8090/callback"],
    ["a published port other than the one used", "http://127.0.0.1:3000/callback", "http://127.0.0.1:54321/callback"],
    [
      "a query kept as published",
      "http://127.0.0.1/callback?app=desktop",
      "http://127.0.0.1:54321/callback?app=desktop",
    ],
  ])("%s: the sign-in goes through and the code is redeemed with the URI as used", async (_name, published, used) => {
    const rt = await testRuntime({ discover: publishing(published) });
    const { location, token } = await signInThrough(rt, CLIENT_ID, used);
    expect(`${location.origin}${location.pathname}`).toBe(new URL(used).origin + new URL(used).pathname);
    expect(location.searchParams.get("state")).toBe("state-123");
    expect(token.status).toBe(200);
  });

  it.each([
    ["another loopback address", "http://127.0.0.1/callback", "http://[::1]:54321/callback"],
    ["localhost for a published IP literal", "http://127.0.0.1/callback", "http://localhost:54321/callback"],
    ["an IP literal for a published localhost", "http://localhost/callback", "http://127.0.0.1:54321/callback"],
    ["another path", "http://127.0.0.1/callback", "http://127.0.0.1:54321/other"],
    ["a longer path", "http://127.0.0.1/callback", "http://127.0.0.1:54321/callback/more"],
    ["another query", "http://127.0.0.1/callback", "http://127.0.0.1:54321/callback?x=1"],
    ["https where http is published", "http://127.0.0.1/callback", "https://127.0.0.1:54321/callback"],
    ["another 127/8 address", "http://127.0.0.1/callback", "http://127.0.0.2:54321/callback"],
    ["a port on a published https host", "https://app.example.com/callback", "https://app.example.com:8443/callback"],
    ["a port on a published https loopback URI", "https://127.0.0.1/callback", "https://127.0.0.1:8443/callback"],
  ])("%s is refused, on a page, with nothing sent", async (_name, published, used) => {
    await expectRefused(await testRuntime({ discover: publishing(published) }), CLIENT_ID, used);
  });
});

describe("a loopback client_id's redirect URI may use another port of the same loopback host", () => {
  it.each([
    ["http://127.0.0.1:8080/", "http://127.0.0.1:54321/callback"],
    ["http://127.0.0.1/", "http://127.0.0.1:54321/callback"],
    ["http://[::1]:8080/", "http://[::1]:61023/"],
    ["http://localhost:3000/", "http://localhost:8090/oauth/callback"],
  ])("client_id %s, redirect_uri %s: the sign-in goes through", async (clientId, redirectUri) => {
    const rt = await testRuntime();
    const { location, token } = await signInThrough(rt, clientId, redirectUri);
    expect(location.port).toBe(new URL(redirectUri).port);
    expect(token.status).toBe(200);
  });

  it.each([
    ["http://127.0.0.1:8080/", "http://localhost:54321/callback"],
    ["http://127.0.0.1:8080/", "http://[::1]:54321/callback"],
    ["http://localhost:3000/", "http://127.0.0.1:8090/callback"],
    ["http://127.0.0.1:8080/", "https://127.0.0.1:54321/callback"],
  ])("client_id %s, redirect_uri %s: another host (or scheme) is refused", async (clientId, redirectUri) => {
    await expectRefused(await testRuntime(), clientId, redirectUri);
  });
});

describe("the owner's earlier approval covers the app's next port", () => {
  it("a live session approves the app again when its listener comes back on another port", async () => {
    const rt = await testRuntime({ discover: publishing("http://127.0.0.1/callback", "http://127.0.0.1/other") });
    const cookie = await consoleSignIn(rt, { remember: true });
    const first = await signedRequest(rt, authorizationParams({ redirect_uri: "http://127.0.0.1:50001/callback" }));
    expect(
      redirectParams(await approve(rt, first, { headers: { Cookie: cookie }, scopes: ["profile", "create"] })).get(
        "code",
      ),
    ).toMatch(/^ic_/);

    const next = await authorize(rt, authorizationParams({ redirect_uri: "http://127.0.0.1:50002/callback" }), {
      Cookie: cookie,
    });
    expect(offerIn(next)).toEqual({ session: true });
    // Another published path was never approved: the password again.
    const other = await authorize(rt, authorizationParams({ redirect_uri: "http://127.0.0.1:50002/other" }), {
      Cookie: cookie,
    });
    expect(offerIn(other)).toMatchObject({ session: false, password: true });
  });
});

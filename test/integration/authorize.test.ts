// GET /auth, in-process against the real local Blobs server: which failures are shown to the
// person (never redirected), which go back to the client (its redirect URI verified and
// trusted), and which are shown with a link back (verified, but not trusted).
import { describe, expect, it } from "vitest";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { approve, authorize, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, CLIENT_ID, decodePayload, REDIRECT_URI, redirectParams } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { approvedBefore } from "../helpers/approved-app.ts";

/** Discovery that finds the client's document, publishing its usual redirect URI. */
async function publishingClient(clientId: URL): Promise<ClientInfo> {
  return { clientId: clientId.href, redirectUris: [REDIRECT_URI], fetched: true, name: "App" };
}

/** The link a page offers, unescaped. */
function linkOn(html: string): string | undefined {
  return /<a class="button" href="([^"]*)">/
    .exec(html)?.[1]
    ?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

async function expectPage(response: Response, status: number, text: RegExp): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  const html = await response.text();
  expect(html).toMatch(text);
  return html;
}

function expectClientError(response: Response, error: string, state: string | null = "state-123"): URLSearchParams {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  const params = location.searchParams;
  expect(params.get("error")).toBe(error);
  expect(params.get("error_description")).toBeTruthy();
  expect(params.get("state")).toBe(state);
  expect(params.get("iss")).toBe("https://auth.jane.example/");
  return params;
}

describe("GET /auth: before the redirect URI is verified, errors are pages", () => {
  it("leads to the home page when opened without parameters", async () => {
    const response = await authorize(await testRuntime(), "");
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/indieauth/");
  });

  it.each([
    ["client_id missing", { client_id: null }, /no client_id/],
    ["redirect_uri missing", { redirect_uri: null }, /no redirect_uri/],
    ["client_id with a fragment", { client_id: "https://app.example.com/#x" }, /fragment/],
    ["client_id with a private IP", { client_id: "https://10.0.0.1/" }, /domain name/],
    ["client_id with ..", { client_id: "https://app.example.com/a/../" }, /path segments/],
    ["redirect_uri javascript:", { redirect_uri: "javascript:alert(1)" }, /javascript/],
    [
      "redirect_uri on another host, unpublished",
      { redirect_uri: "https://evil.example/callback" },
      /does not publish/,
    ],
    ["redirect_uri on another port", { redirect_uri: "https://app.example.com:8443/callback" }, /does not publish/],
    ["redirect_uri on http instead of https", { redirect_uri: "http://app.example.com/callback" }, /does not publish/],
  ])("%s: 400 page, no redirect", async (_name, overrides, text) => {
    await expectPage(await authorize(await testRuntime(), authorizationParams(overrides)), 400, text);
  });

  it("refuses client_id or redirect_uri given twice", async () => {
    const params = authorizationParams();
    params.append("redirect_uri", "https://evil.example/");
    await expectPage(await authorize(await testRuntime(), params), 400, /more than once/);
  });

  it("escapes what it shows", async () => {
    const html = await expectPage(
      await authorize(
        await testRuntime(),
        authorizationParams({ redirect_uri: "https://evil.example/<script>alert(1)</script>" }),
      ),
      400,
      /does not publish/,
    );
    expect(html).not.toContain("<script>");
  });

  it("knows this deployment as its own client (the self-test) by name, without fetching it", async () => {
    const rt = await testRuntime({ discover: () => Promise.reject(new Error("this deployment was fetched")) });
    const base = "https://auth.jane.example";
    const request = await signedRequest(
      rt,
      authorizationParams({
        client_id: `${base}/`,
        redirect_uri: `${base}/indieauth/self-test/`,
        scope: "profile email",
      }),
    );
    expect(decodePayload(request)).toMatchObject({ clientId: `${base}/`, client: { name: "IndieAuth self-test" } });
  });

  it("accepts a redirect URI on another host when the client publishes it", async () => {
    const rt = await testRuntime({
      discover: async (clientId) => ({
        clientId: clientId.href,
        redirectUris: ["https://other.example/cb"],
        fetched: true,
        name: "App",
      }),
    });
    const request = await signedRequest(rt, authorizationParams({ redirect_uri: "https://other.example/cb" }));
    expect(decodePayload(request)).toMatchObject({ redirectUri: "https://other.example/cb", client: { name: "App" } });
  });

  it("shows a setup page when the server is not configured", async () => {
    const rt = await testRuntime({ env: { SECRET: "short" } });
    await expectPage(await authorize(rt, authorizationParams()), 500, /SECRET must be at least 32 characters/);
  });

  it("words the setup page for where it runs: each problem once, its fix, no markup shown as text", async () => {
    const deployed = await (
      await authorize(
        await testRuntime({ env: { SECRET: undefined, PASSWORD_HASH: undefined } }),
        authorizationParams(),
      )
    ).text();
    expect(deployed).toContain("Set them in Netlify");
    expect(deployed).toContain("SECRET is missing. Set SECRET to at least 32 random characters");
    expect(deployed).not.toContain("SECRET: SECRET");
    expect(deployed).not.toContain("`");
    const local = await (
      await authorize(
        await testRuntime({
          env: { SECRET: undefined, BASE_URL: "http://localhost:8888", ME: "http://localhost:8888/", CONTEXT: "dev" },
        }),
        authorizationParams(),
      )
    ).text();
    expect(local).toContain("restart npm start");
    expect(local).not.toContain("redeploy");
  });
});

describe("GET /auth: after the redirect URI is verified, errors go back to an app approved there before", () => {
  it.each([
    ["response_type missing", { response_type: null }, "invalid_request"],
    ["response_type token", { response_type: "token" }, "unsupported_response_type"],
    ["code_challenge missing", { code_challenge: null }, "invalid_request"],
    ["code_challenge too short", { code_challenge: "abc" }, "invalid_request"],
    ["code_challenge_method missing", { code_challenge_method: null }, "invalid_request"],
    ["code_challenge_method plain", { code_challenge_method: "plain" }, "invalid_request"],
    ["a malformed scope", { scope: 'create "x"' }, "invalid_scope"],
  ])("%s: %s", async (_name, overrides, error) => {
    expectClientError(
      await authorize(
        await approvedBefore(await testRuntime({ discover: publishingClient })),
        authorizationParams(overrides),
      ),
      error,
    );
  });

  it("requires state, and says so without one", async () => {
    expectClientError(
      await authorize(
        await approvedBefore(await testRuntime({ discover: publishingClient })),
        authorizationParams({ state: null }),
      ),
      "invalid_request",
      null,
    );
  });

  it("refuses any parameter given twice", async () => {
    const params = authorizationParams();
    params.append("scope", "delete");
    expectClientError(
      await authorize(await approvedBefore(await testRuntime({ discover: publishingClient })), params),
      "invalid_request",
    );
  });

  it("keeps the redirect URI's own query", async () => {
    const discover = async (clientId: URL) => ({
      ...(await publishingClient(clientId)),
      redirectUris: [`${REDIRECT_URI}?app=1`],
    });
    const rt = await approvedBefore(await testRuntime({ discover }), `${REDIRECT_URI}?app=1`);
    const response = await authorize(
      rt,
      authorizationParams({ redirect_uri: `${REDIRECT_URI}?app=1`, response_type: "token" }),
    );
    expect(redirectParams(response).get("app")).toBe("1");
  });
});

describe("GET /auth: an error for a redirect URI that is verified but not trusted is shown, with a link back", () => {
  it("a same-origin redirect URI the client does not publish: a page that says what went wrong, and a link (never a redirect) back", async () => {
    const response = await authorize(await testRuntime(), authorizationParams({ response_type: "token" }));
    const html = await expectPage(response, 400, /response_type token is not supported/);
    expect(html).toContain("You were not sent back to the app automatically");
    const link = new URL(linkOn(html)!);
    expect(`${link.origin}${link.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(link.searchParams)).toMatchObject({
      error: "unsupported_response_type",
      state: "state-123",
      iss: "https://auth.jane.example/",
    });
  });

  it("a loopback redirect URI never approved is not trusted (anyone can name one: a local service of the owner's), and costs no fetch", async () => {
    let fetches = 0;
    const rt = await testRuntime({
      discover: async (clientId) => (fetches++, { clientId: clientId.href, redirectUris: [], fetched: false }),
    });
    const response = await authorize(
      rt,
      authorizationParams({
        client_id: "http://127.0.0.1:3000/",
        redirect_uri: "http://127.0.0.1:3000/callback",
        code_challenge: null,
      }),
    );
    const html = await expectPage(response, 400, /code_challenge is required/);
    expect(html).toContain("You were not sent back to the app automatically");
    expect(linkOn(html)).toMatch(/^http:\/\/127\.0\.0\.1:3000\/callback\?error=invalid_request&/);
    expect(fetches).toBe(0);
  });

  it("a redirect URI approved before (with the password) is trusted, and costs no fetch; another one of the same app is not", async () => {
    let fetches = 0;
    const rt = await testRuntime({
      discover: async (clientId) => (fetches++, { clientId: clientId.href, redirectUris: [], fetched: false }),
    });
    expect((await approve(rt, await signedRequest(rt))).status).toBe(302);
    fetches = 0;
    expectClientError(
      await authorize(rt, authorizationParams({ response_type: "token" })),
      "unsupported_response_type",
    );
    expect(fetches).toBe(0);
    const other = await authorize(
      rt,
      authorizationParams({ redirect_uri: "https://app.example.com/other", response_type: "token" }),
    );
    await expectPage(other, 400, /not sent back to the app automatically/);
  });

  it("a same-origin redirect URI its document publishes is not trusted for that, and costs no fetch", async () => {
    let fetches = 0;
    const rt = await testRuntime({ discover: async (clientId) => (fetches++, publishingClient(clientId)) });
    await expectPage(
      await authorize(rt, authorizationParams({ code_challenge_method: "plain" })),
      400,
      /not sent back to the app automatically/,
    );
    expect(fetches).toBe(0);
  });
});

describe("GET /auth: a valid request goes to the sign-in page", () => {
  it("carries the request, signed, in the fragment", async () => {
    const request = await signedRequest(await testRuntime());
    expect(decodePayload(request)).toMatchObject({
      clientId: CLIENT_ID,
      redirectUri: REDIRECT_URI,
      state: "state-123",
      scopes: ["profile", "create"],
    });
    expect(decodePayload(request)).not.toHaveProperty("meMismatch");
  });

  it("accepts the legacy response_type=id as code", async () => {
    await signedRequest(await testRuntime(), authorizationParams({ response_type: "id" }));
  });

  it("notes a `me` that is not the owner, and continues", async () => {
    const request = await signedRequest(
      await testRuntime(),
      authorizationParams({ me: "https://someone-else.example/" }),
    );
    expect(decodePayload(request)).toMatchObject({ meMismatch: "https://someone-else.example/" });
  });

  it("carries `me` only as a short parsed URL: no injected lines, controls or bidi overrides, at most 80 characters", async () => {
    const rt = await testRuntime();
    const carried = async (me: string) =>
      decodePayload(await signedRequest(rt, authorizationParams({ me })))["meMismatch"];
    // The review's injection: lines of its own, and text that reads backwards.
    await expect(
      carried(`https://someone.example/\n\n\u2705 VERIFIED APP \u2014 Press Approve`),
    ).resolves.toBeUndefined();
    await expect(carried(`someone.example/\u202e\u2705VERIFIED_APP_Press_Approve`)).resolves.toBe(
      "https://someone.example/%E2%80%AE%E2%9C%85VERIFIED_APP_Press_Approve",
    );
    await expect(carried(`https://someone.example/${"a".repeat(300)}`)).resolves.toBe(
      `https://someone.example/${"a".repeat(55)}…`,
    );
    await expect(carried("https://bücher.example/")).resolves.toBe("https://xn--bcher-kva.example/");
    await expect(carried("not a url at all <script>")).resolves.toBeUndefined();
  });

  it("does not flag the owner's own URL written differently", async () => {
    const request = await signedRequest(await testRuntime(), authorizationParams({ me: "jane.example" }));
    expect(decodePayload(request)).not.toHaveProperty("meMismatch");
  });

  it("drops email without profile", async () => {
    const request = await signedRequest(await testRuntime(), authorizationParams({ scope: "email create" }));
    expect(decodePayload(request)).toMatchObject({ scopes: ["create"] });
  });

  it("accepts loopback clients with a redirect on the same origin", async () => {
    const request = await signedRequest(
      await testRuntime(),
      authorizationParams({ client_id: "http://127.0.0.1:3000/", redirect_uri: "http://127.0.0.1:3000/callback" }),
    );
    expect(decodePayload(request)).toMatchObject({ clientId: "http://127.0.0.1:3000/" });
  });
});

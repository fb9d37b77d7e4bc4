// POST /token and POST /auth redemption, in-process against the real local Blobs server.
import { describe, expect, it } from "vitest";
import { postAuth, postToken, signInForCode, userinfo } from "../helpers/endpoints.ts";
import { CLIENT_ID, codeForm, refreshForm } from "../helpers/requests.ts";
import { expectOAuthError, introspection, tokensFor } from "../helpers/tokens.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

const DAY = 24 * 60 * 60 * 1000;

describe("POST /token with an authorization code", () => {
  it("answers the access token response, never cached, and stores no raw token", async () => {
    const rt = await testRuntime();
    const response = await postToken(rt, codeForm(await signInForCode(rt)), { Accept: "application/json" });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    const body = await response.json();
    expect(body).toEqual({
      access_token: expect.stringMatching(/^iat_/),
      token_type: "Bearer",
      scope: "profile email create",
      me: "https://jane.example/",
      expires_in: 30 * 24 * 60 * 60,
      refresh_token: expect.stringMatching(/^irt_/),
      profile: {
        name: "Jane Doe",
        url: "https://jane.example/",
        photo: "https://jane.example/photo.jpg",
        email: "jane@jane.example",
      },
    });
    const grantId = body.access_token.slice(4, 26);
    const stored = JSON.stringify(await rt.store.get(RECORDS.grant.key(grantId)));
    expect(stored).toContain(CLIENT_ID);
    expect(stored).not.toContain(body.access_token);
    expect(stored).not.toContain(body.refresh_token);
  });

  it("answers form-encoded only when the client asks for that and not JSON", async () => {
    const rt = await testRuntime();
    const form = await postToken(rt, codeForm(await signInForCode(rt)), {
      Accept: "application/x-www-form-urlencoded",
    });
    expect(form.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    expect(new URLSearchParams(await form.text()).get("token_type")).toBe("Bearer");
    const both = await postToken(rt, codeForm(await signInForCode(rt)), {
      Accept: "application/x-www-form-urlencoded, application/json",
    });
    expect(both.headers.get("content-type")).toBe("application/json");
  });

  // A JSON body, and any other that is not form-encoded, is refused: standard-requests.test.ts.
  it("accepts form bodies with a charset", async () => {
    const rt = await testRuntime();
    const empty = await postToken(rt, {}, {});
    await expectOAuthError(empty, 400, "invalid_request");
    const { tokenEndpoint } = await import("../../netlify/lib/endpoints/token.ts");
    const charset = await tokenEndpoint(
      new Request("https://auth.jane.example/token", {
        method: "POST",
        body: new URLSearchParams(codeForm(await signInForCode(rt))).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8" },
      }),
      rt,
    );
    expect(charset.status).toBe(200);
  });

  it("refuses a code issued without a scope (spec 5.3.3)", async () => {
    const rt = await testRuntime();
    await expectOAuthError(await postToken(rt, codeForm(await signInForCode(rt, null))), 400, "invalid_grant");
  });

  it("refuses a replayed code and revokes what the first redemption issued", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    const first = await (await postToken(rt, codeForm(signedIn))).json();
    expect(await introspection(rt, first.access_token)).toMatchObject({ active: true });
    await expectOAuthError(await postToken(rt, codeForm(signedIn)), 400, "invalid_grant");
    expect(await introspection(rt, first.access_token)).toEqual({ active: false });
    await expectOAuthError(await postToken(rt, refreshForm(first.refresh_token)), 400, "invalid_grant");
  });

  it("refuses a code already redeemed at POST /auth", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    expect((await postAuth(rt, codeForm(signedIn))).status).toBe(200);
    await expectOAuthError(await postToken(rt, codeForm(signedIn)), 400, "invalid_grant");
  });

  it.each([
    ["a wrong code_verifier", { code_verifier: "w".repeat(43) }, "invalid_grant"],
    ["no code_verifier", { code_verifier: null }, "invalid_request"],
    ["a malformed code_verifier", { code_verifier: "short" }, "invalid_request"],
    ["another client_id", { client_id: "https://other.example/" }, "invalid_grant"],
    ["another redirect_uri", { redirect_uri: "https://app.example.com/other" }, "invalid_grant"],
    ["no grant_type", { grant_type: null }, "invalid_request"],
    ["grant_type=password", { grant_type: "password" }, "unsupported_grant_type"],
    ["no code", { code: null }, "invalid_request"],
    ["no redirect_uri", { redirect_uri: null }, "invalid_request"],
  ])("refuses %s", async (_name, overrides, error) => {
    const rt = await testRuntime();
    await expectOAuthError(await postToken(rt, codeForm(await signInForCode(rt), overrides)), 400, error);
  });

  // Codes without a challenge cannot exist: GET /auth refuses requests without one
  // (authorize.test.ts), so "a verifier for a code issued without a challenge" never arises.

  it("accepts a client_id that differs only by the trailing slash", async () => {
    const rt = await testRuntime();
    const response = await postToken(
      rt,
      codeForm(await signInForCode(rt), { client_id: CLIENT_ID.replace(/\/$/, "") }),
    );
    expect(response.status).toBe(200);
  });

  it("refuses an expired code (injected clock)", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    rt.clock.advance(10 * 60 * 1000 + 1000);
    await expectOAuthError(await postToken(rt, codeForm(signedIn)), 400, "invalid_grant");
  });
});

describe("POST /auth", () => {
  it("answers me and the profile, never a token", async () => {
    const rt = await testRuntime();
    const response = await postAuth(rt, codeForm(await signInForCode(rt, "profile")));
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      me: "https://jane.example/",
      profile: { name: "Jane Doe", url: "https://jane.example/", photo: "https://jane.example/photo.jpg" },
    });
  });

  it("tolerates a missing grant_type and answers only me without the profile scope", async () => {
    const rt = await testRuntime();
    const response = await postAuth(rt, codeForm(await signInForCode(rt, "create"), { grant_type: null }));
    expect(await response.json()).toEqual({ me: "https://jane.example/" });
  });
});

describe("refreshing (spec 5.5)", () => {
  it("rotates both tokens; the old access token stops working", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    const response = await postToken(rt, refreshForm(first.refresh_token));
    expect(response.status).toBe(200);
    const second = await response.json();
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await introspection(rt, first.access_token)).toEqual({ active: false });
    expect(await introspection(rt, second.access_token)).toMatchObject({ active: true });
  });

  it("revokes the whole grant when a rotated-out refresh token comes back", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    const second = await (await postToken(rt, refreshForm(first.refresh_token))).json();
    await expectOAuthError(await postToken(rt, refreshForm(first.refresh_token)), 400, "invalid_grant");
    expect(await introspection(rt, second.access_token)).toEqual({ active: false });
    await expectOAuthError(await postToken(rt, refreshForm(second.refresh_token)), 400, "invalid_grant");
  });

  it("narrows the scope on request, and refuses a wider one", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    const narrow = await (await postToken(rt, refreshForm(first.refresh_token, { scope: "create" }))).json();
    expect(narrow.scope).toBe("create");
    expect(await introspection(rt, narrow.access_token)).toMatchObject({ scope: "create" });
    await expectOAuthError(
      await postToken(rt, refreshForm(narrow.refresh_token, { scope: "create delete" })),
      400,
      "invalid_scope",
    );
  });

  it("refuses a scope that leaves nothing (email alone means nothing without profile)", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    await expectOAuthError(
      await postToken(rt, refreshForm(first.refresh_token, { scope: "email" })),
      400,
      "invalid_scope",
    );
  });

  it("requires the grant's own client_id", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    await expectOAuthError(
      await postToken(rt, refreshForm(first.refresh_token, { client_id: "https://other.example/" })),
      400,
      "invalid_grant",
    );
    const { client_id: _, ...withoutClient } = refreshForm(first.refresh_token);
    await expectOAuthError(await postToken(rt, withoutClient), 400, "invalid_request");
  });

  it("lets access tokens expire after 30 days while the refresh token still works", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    rt.clock.advance(30 * DAY + 1000);
    expect(await introspection(rt, first.access_token)).toEqual({ active: false });
    expect((await postToken(rt, refreshForm(first.refresh_token))).status).toBe(200);
  });

  it("refuses a refresh token unused for 90 days", async () => {
    const rt = await testRuntime();
    const first = await tokensFor(rt);
    rt.clock.advance(90 * DAY + 1000);
    await expectOAuthError(await postToken(rt, refreshForm(first.refresh_token)), 400, "invalid_grant");
  });
});

describe("no secret stands in for another", () => {
  it("a code is not an access token, and a refresh token is not one either", async () => {
    const rt = await testRuntime();
    const { code } = await signInForCode(rt);
    expect(await introspection(rt, code)).toEqual({ active: false });
    expect((await userinfo(rt, code)).status).toBe(401);
    const tokens = await tokensFor(rt);
    expect(await introspection(rt, tokens.refresh_token)).toEqual({ active: false });
  });

  it("an access token is not a refresh token, and neither token is a code", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await expectOAuthError(await postToken(rt, refreshForm(tokens.access_token)), 400, "invalid_grant");
    const signedIn = await signInForCode(rt);
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { code: tokens.refresh_token })),
      400,
      "invalid_grant",
    );
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { code: tokens.access_token })),
      400,
      "invalid_grant",
    );
  });

  it("a forged or truncated token is inactive", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    expect(await introspection(rt, `${access_token.slice(0, 27)}${"A".repeat(43)}`)).toEqual({ active: false });
    expect(await introspection(rt, access_token.slice(0, -2))).toEqual({ active: false });
  });
});

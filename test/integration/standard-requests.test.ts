// Requests the standards refuse, at POST /token, POST /auth (the code's redemption), POST
// /introspect and POST /revoke, in process against the real local Blobs server: a parameter
// sent twice (RFC 6749 3.1), a body that is not form-encoded (RFC 6749 3.2, RFC 7009 2.1,
// RFC 7662 2.1), a client_secret (RFC 6749 2.3: this server issues none, so none can be
// checked), and a revocation by a client that names another client than the token's (RFC 7009
// 2.1). Each refusal uses up nothing: the code still redeems, the refresh token still refreshes,
// the token is still active. openid-client (on oauth4webapi) shows what a real library sees.
import * as client from "openid-client";
import { describe, expect, it } from "vitest";
import { endpoints, postAuth, postToken, revoke, signInForCode } from "../helpers/endpoints.ts";
import { BASE, CLIENT_ID, codeForm, post, refreshForm, type SignedIn } from "../helpers/requests.ts";
import { expectOAuthError, introspection, tokensFor } from "../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const OTHER_CLIENT = "https://other.example/";
const RESOURCE_SERVER = "resource-server-credential-0123456789abcdef";

/** A POST whose body is exactly these bytes, with this Content-Type (none when null). */
function rawPost(path: string, body: string, type: string | null, headers: Record<string, string> = {}): Request {
  // Bytes, not a string: a string body would get a text/plain type of its own.
  return new Request(`${BASE}${path}`, {
    method: "POST",
    body: Buffer.from(body),
    headers: { ...(type === null ? {} : { "Content-Type": type }), ...headers },
  });
}

/** The fields as a form with one more pair appended (a repeated name). */
function withRepeat(fields: Record<string, string>, name: string, value = fields[name] ?? "x"): URLSearchParams {
  const form = new URLSearchParams(fields);
  form.append(name, value);
  return form;
}

async function expectRefusedRequest(response: Response, words: string): Promise<void> {
  const body = (await response.clone().json()) as { error_description: string };
  await expectOAuthError(response, 400, "invalid_request");
  expect(body.error_description).toContain(words);
}

/** 401 invalid_client with a challenge only where Basic credentials were sent (RFC 6749 5.2). */
async function expectInvalidClient(response: Response, challenge: boolean): Promise<void> {
  await expectOAuthError(response.clone(), 401, "invalid_client");
  expect(response.headers.get("www-authenticate")).toBe(challenge ? 'Basic realm="indieauth"' : null);
}

async function expectRedeems(rt: TestRuntime, signedIn: SignedIn): Promise<void> {
  const response = await postToken(rt, codeForm(signedIn));
  expect(response.status).toBe(200);
  expect(((await response.json()) as { access_token: string }).access_token).toMatch(/^iat_/);
}

async function expectActive(rt: TestRuntime, accessToken: string): Promise<void> {
  expect(await introspection(rt, accessToken)).toMatchObject({ active: true });
}

describe("a parameter sent twice is refused, naming it, and uses up nothing (RFC 6749 3.1)", () => {
  it.each(["grant_type", "code", "client_id", "redirect_uri", "code_verifier"])(
    "POST /token with %s twice (the same value): 400, and the code still redeems",
    async (name) => {
      const rt = await testRuntime();
      const signedIn = await signInForCode(rt);
      await expectRefusedRequest(
        await endpoints.token(post("/token", withRepeat(codeForm(signedIn), name)), rt),
        `The parameter ${name} is given more than once.`,
      );
      await expectRedeems(rt, signedIn);
    },
  );

  it("POST /token with two different codes: 400, and neither is used up", async () => {
    const rt = await testRuntime();
    const [first, second] = [await signInForCode(rt), await signInForCode(rt)];
    await expectRefusedRequest(
      await endpoints.token(post("/token", withRepeat(codeForm(first), "code", second.code)), rt),
      "code",
    );
    await expectRedeems(rt, first);
    await expectRedeems(rt, second);
  });

  it("a refresh with refresh_token twice: 400, and the refresh token is not rotated", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await expectRefusedRequest(
      await endpoints.token(post("/token", withRepeat(refreshForm(tokens.refresh_token), "refresh_token")), rt),
      "refresh_token",
    );
    expect((await postToken(rt, refreshForm(tokens.refresh_token))).status).toBe(200);
  });

  it("POST /auth with code twice: 400, and the code still redeems there", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt, "profile");
    const fields = codeForm(signedIn, { grant_type: null });
    await expectRefusedRequest(
      await endpoints.profileRedemption(post("/auth", withRepeat(fields, "code")), rt),
      "code",
    );
    expect((await postAuth(rt, fields)).status).toBe(200);
  });

  it("POST /revoke and the legacy action=revoke with token twice: 400, and the token stays active", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    await expectRefusedRequest(
      await endpoints.revoke(post("/revoke", withRepeat({ token: access_token }, "token")), rt),
      "token",
    );
    await expectRefusedRequest(
      await endpoints.token(post("/token", withRepeat({ action: "revoke", token: access_token }, "token")), rt),
      "token",
    );
    await expectActive(rt, access_token);
  });

  it("POST /introspect with token twice: 400, for the resource server's credential and for the token itself", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const { access_token } = await tokensFor(rt);
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    await expectRefusedRequest(
      await endpoints.introspect(
        post("/introspect", withRepeat({ token: access_token }, "token"), bearer(RESOURCE_SERVER)),
        rt,
      ),
      "token",
    );
    await expectRefusedRequest(
      await endpoints.introspect(
        post("/introspect", withRepeat({ token: access_token }, "token"), bearer(access_token)),
        rt,
      ),
      "token",
    );
  });

  it("resource twice keeps RFC 8707's own answer (invalid_target: one resource per grant), and the code stays good", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    const twice = withRepeat(
      { ...codeForm(signedIn), resource: "https://blog.example/mcp" },
      "resource",
      "https://other.example/mcp",
    );
    await expectOAuthError(await endpoints.token(post("/token", twice), rt), 400, "invalid_target");
    await expectRedeems(rt, signedIn);
  });
});

describe("a body that is not application/x-www-form-urlencoded is refused (RFC 6749 3.2)", () => {
  const NOT_FORMS: [string, string, (fields: Record<string, string>) => string][] = [
    ["JSON", "application/json", (fields) => JSON.stringify(fields)],
    ["JSON with a charset", "application/json; charset=utf-8", (fields) => JSON.stringify(fields)],
    [
      "text/plain (what fetch sends for a string body)",
      "text/plain;charset=UTF-8",
      (fields) => new URLSearchParams(fields).toString(),
    ],
    [
      "multipart",
      "multipart/form-data; boundary=b0undary",
      (fields) =>
        `${Object.entries(fields)
          .map(([name, value]) => `--b0undary\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
          .join("")}--b0undary--\r\n`,
    ],
  ];

  it.each(NOT_FORMS)("POST /token with a %s body: 400, and the code still redeems", async (_name, type, encode) => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    await expectRefusedRequest(
      await endpoints.token(rawPost("/token", encode(codeForm(signedIn)), type), rt),
      "application/x-www-form-urlencoded",
    );
    await expectRedeems(rt, signedIn);
  });

  it("POST /auth with a JSON body: 400, and the code still redeems there", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt, "profile");
    const fields = codeForm(signedIn, { grant_type: null });
    await expectRefusedRequest(
      await endpoints.profileRedemption(rawPost("/auth", JSON.stringify(fields), "application/json"), rt),
      "application/x-www-form-urlencoded",
    );
    expect((await postAuth(rt, fields)).status).toBe(200);
  });

  it("POST /revoke and the legacy action=revoke with a JSON body: 400, and the token stays active", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    await expectRefusedRequest(
      await endpoints.revoke(rawPost("/revoke", JSON.stringify({ token: access_token }), "application/json"), rt),
      "application/x-www-form-urlencoded",
    );
    await expectRefusedRequest(
      await endpoints.token(
        rawPost("/token", JSON.stringify({ action: "revoke", token: access_token }), "application/json"),
        rt,
      ),
      "application/x-www-form-urlencoded",
    );
    await expectActive(rt, access_token);
  });

  it("POST /introspect with a JSON body: 400", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const { access_token } = await tokensFor(rt);
    const request = rawPost("/introspect", JSON.stringify({ token: access_token }), "application/json", {
      Authorization: `Bearer ${RESOURCE_SERVER}`,
    });
    await expectRefusedRequest(await endpoints.introspect(request, rt), "application/x-www-form-urlencoded");
  });

  it("still reads a form with a charset, a form without a Content-Type (Python's requests with a string body), and an empty body as no parameters", async () => {
    const rt = await testRuntime();
    const form = (signedIn: SignedIn) => new URLSearchParams(codeForm(signedIn)).toString();
    expect(
      (
        await endpoints.token(
          rawPost("/token", form(await signInForCode(rt)), "application/x-www-form-urlencoded;charset=UTF-8"),
          rt,
        )
      ).status,
    ).toBe(200);
    expect((await endpoints.token(rawPost("/token", form(await signInForCode(rt)), null), rt)).status).toBe(200);
    // IndieAuth's self-check: the Bearer token asks about itself, with no body at all.
    const { access_token } = await tokensFor(rt);
    const empty = await endpoints.introspect(
      rawPost("/introspect", "", "application/json", { Authorization: `Bearer ${access_token}` }),
      rt,
    );
    expect(await empty.json()).toMatchObject({ active: true });
  });
});

describe("a client_secret is refused with 401 invalid_client, and uses up nothing (RFC 6749 2.3, OAuth 2.1 3.2.1)", () => {
  const goBasic = (clientId: string) => ({
    Authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:`).toString("base64")}`,
  });

  it("at POST /token with a code: no challenge (no Authorization header was sent), and the retry without it redeems", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    await expectInvalidClient(await postToken(rt, { ...codeForm(signedIn), client_secret: "s3cret" }), false);
    await expectRedeems(rt, signedIn);
  });

  it("beside Basic credentials (two methods at once): the Basic challenge", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    await expectInvalidClient(
      await postToken(rt, { ...codeForm(signedIn), client_secret: "s3cret" }, goBasic(CLIENT_ID)),
      true,
    );
    await expectRedeems(rt, signedIn);
  });

  it("on a refresh: the refresh token is not rotated", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await expectInvalidClient(
      await postToken(rt, refreshForm(tokens.refresh_token, { client_secret: "s3cret" })),
      false,
    );
    expect((await postToken(rt, refreshForm(tokens.refresh_token))).status).toBe(200);
  });

  it("at POST /auth: the code still redeems there", async () => {
    const rt = await testRuntime();
    const fields = codeForm(await signInForCode(rt, "profile"), { grant_type: null });
    await expectInvalidClient(await postAuth(rt, { ...fields, client_secret: "s3cret" }), false);
    expect((await postAuth(rt, fields)).status).toBe(200);
  });

  it("at POST /revoke and the legacy action=revoke: the token stays active", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    await expectInvalidClient(
      await revoke(rt, { token: access_token, client_id: CLIENT_ID, client_secret: "s3cret" }),
      false,
    );
    await expectInvalidClient(
      await postToken(rt, { action: "revoke", token: access_token, client_id: CLIENT_ID, client_secret: "s3cret" }),
      false,
    );
    await expectActive(rt, access_token);
  });

  it("an empty client_secret is no parameter (RFC 6749 3.1), as passport-oauth2 sends it for a public client: accepted", async () => {
    const rt = await testRuntime();
    expect((await postToken(rt, { ...codeForm(await signInForCode(rt)), client_secret: "" })).status).toBe(200);
  });
});

describe("a revocation that names a client revokes only that client's tokens (RFC 7009 2.1)", () => {
  it("another client's client_id: 400 invalid_grant, and neither token is revoked", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    for (const token of [tokens.access_token, tokens.refresh_token]) {
      const refused = await revoke(rt, { token, client_id: OTHER_CLIENT });
      const body = (await refused.clone().json()) as { error_description: string };
      await expectOAuthError(refused, 400, "invalid_grant");
      expect(body.error_description).toContain("issued to another client");
    }
    await expectActive(rt, tokens.access_token);
    expect((await postToken(rt, refreshForm(tokens.refresh_token))).status).toBe(200);
  });

  it("another client as Basic credentials, and at the legacy action=revoke: refused the same, nothing revoked", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const basic = { Authorization: `Basic ${Buffer.from(`${encodeURIComponent(OTHER_CLIENT)}:`).toString("base64")}` };
    await expectOAuthError(
      await endpoints.revoke(post("/revoke", { token: access_token }, basic), rt),
      400,
      "invalid_grant",
    );
    await expectOAuthError(
      await postToken(rt, { action: "revoke", token: access_token, client_id: OTHER_CLIENT }),
      400,
      "invalid_grant",
    );
    await expectActive(rt, access_token);
  });

  it("a client assertion for a public client's token: 401 invalid_client (it declared no private_key_jwt), nothing revoked", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const asserted = {
      token: access_token,
      client_id: CLIENT_ID,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
    };
    await expectInvalidClient(await revoke(rt, asserted), false);
    await expectActive(rt, access_token);
  });

  it("the token's own client_id (even without its trailing slash) revokes it", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const response = await revoke(rt, { token: access_token, client_id: CLIENT_ID.replace(/\/$/, "") });
    expect(response.status).toBe(200);
    expect(await introspection(rt, access_token)).toEqual({ active: false });
  });

  it("no client at all, as IndieAuth's revocation request (spec 7.1: token alone), revokes it", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    expect((await revoke(rt, { token: access_token })).status).toBe(200);
    expect(await introspection(rt, access_token)).toEqual({ active: false });
  });

  it("an unknown token with any client_id: 200, as RFC 7009 2.2 answers an invalid token", async () => {
    const rt = await testRuntime();
    const response = await revoke(rt, {
      token: "iat_AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      client_id: OTHER_CLIENT,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
  });
});

describe("what openid-client sees", () => {
  /** openid-client for this server, its requests sent to the handlers. */
  function library(rt: TestRuntime, clientId: string, auth: client.ClientAuth = client.None()): client.Configuration {
    const config = new client.Configuration(
      { issuer: `${BASE}/`, token_endpoint: `${BASE}/token`, revocation_endpoint: `${BASE}/revoke` },
      clientId,
      {},
      auth,
    );
    config[client.customFetch] = async (url, options) => {
      const request = new Request(url, {
        method: options.method,
        headers: options.headers,
        body: new URLSearchParams(options.body as URLSearchParams),
      });
      return new URL(url).pathname === "/revoke" ? endpoints.revoke(request, rt) : endpoints.token(request, rt);
    };
    return config;
  }

  it("its revocation as another client is refused (invalid_grant) and revokes nothing; as the token's client, it revokes", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    await expect(client.tokenRevocation(library(rt, OTHER_CLIENT), access_token)).rejects.toMatchObject({
      error: "invalid_grant",
      status: 400,
    });
    await expectActive(rt, access_token);
    await client.tokenRevocation(library(rt, CLIENT_ID), access_token);
    expect(await introspection(rt, access_token)).toEqual({ active: false });
  });

  it("a refresh with ClientSecretPost (a secret this server never issued) is refused (invalid_client), and the refresh token still works", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await expect(
      client.refreshTokenGrant(library(rt, CLIENT_ID, client.ClientSecretPost("s3cret")), tokens.refresh_token),
    ).rejects.toMatchObject({ error: "invalid_client", status: 401 });
    expect((await client.refreshTokenGrant(library(rt, CLIENT_ID), tokens.refresh_token)).access_token).toMatch(
      /^iat_/,
    );
  });
});

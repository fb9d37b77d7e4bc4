// Clients that present their client_id as HTTP Basic credentials (RFC 6749 2.3.1), as
// golang.org/x/oauth2 does first, in-process against the real local Blobs server: accepted
// with an empty password when the user is the request's client_id (or the body has none);
// anything else refused with 401 invalid_client and a Basic challenge, before anything is
// consumed, so that the retry without the header (what x/oauth2 does next) still works.
import { describe, expect, it } from "vitest";
import { endpoints, postAuth, postToken, signInForCode } from "../helpers/endpoints.ts";
import { CLIENT_ID, codeForm, post, refreshForm, type Tokens } from "../helpers/requests.ts";
import { introspection, tokensFor } from "../helpers/tokens.ts";
import { testRuntime } from "../helpers/runtime.ts";

/** Go's url.QueryEscape: everything but A-Z a-z 0-9 - _ . ~ percent-encoded, a space as "+". */
function goQueryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** What x/oauth2's AuthStyleInHeader sends: SetBasicAuth(QueryEscape(id), QueryEscape(secret)). */
function goBasic(clientId: string, secret = ""): Record<string, string> {
  return {
    Authorization: `Basic ${Buffer.from(`${goQueryEscape(clientId)}:${goQueryEscape(secret)}`).toString("base64")}`,
  };
}

function raw(credentials: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` };
}

/** The code form as x/oauth2 sends it with the header: no client_id in the body. */
function withoutClientId(fields: Record<string, string>): Record<string, string> {
  const { client_id: _dropped, ...rest } = fields;
  return rest;
}

async function expectInvalidClient(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toBe('Basic realm="indieauth"');
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.error).toBe("invalid_client");
  expect(typeof body.error_description).toBe("string");
}

const REFUSED: [string, Record<string, string>][] = [
  ["a client secret", goBasic(CLIENT_ID, "s3cret")],
  ["another client than the body's", goBasic("https://other.example/")],
  ["the client_id unencoded (a colon in the user)", raw(`${CLIENT_ID}:`)],
  ["no colon at all", raw(goQueryEscape(CLIENT_ID))],
  ["an empty user", raw(":")],
  ["broken percent-encoding", raw("https%3A%2F%2Fapp.example.com%2F%E0%A4%A:")],
  ["something that is not base64", { Authorization: "Basic not*base64" }],
  ["two credentials", { Authorization: `${goBasic(CLIENT_ID).Authorization}, Basic eDo=` }],
];

describe("POST /token with Basic client credentials", () => {
  it("accepts Go's header (client_id form-urlencoded, empty password) with no client_id in the body", async () => {
    const rt = await testRuntime();
    const response = await postToken(rt, withoutClientId(codeForm(await signInForCode(rt))), goBasic(CLIENT_ID));
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as Tokens;
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true, client_id: CLIENT_ID });
  });

  it("accepts it beside the same client_id in the body", async () => {
    const rt = await testRuntime();
    expect((await postToken(rt, codeForm(await signInForCode(rt)), goBasic(CLIENT_ID))).status).toBe(200);
  });

  it.each(REFUSED)(
    "refuses %s with 401 invalid_client, and the retry without it redeems the same code",
    async (_name, header) => {
      const rt = await testRuntime();
      const signedIn = await signInForCode(rt);
      const form = codeForm(signedIn);
      await expectInvalidClient(await postToken(rt, form, header));
      // x/oauth2's retry: the client_id in the body, no header.
      const retry = await postToken(rt, form);
      expect(retry.status).toBe(200);
      expect((await retry.json()) as Tokens).toHaveProperty("access_token");
    },
  );

  it("takes a well-formed header naming another client as that client: the code was not issued to it", async () => {
    const rt = await testRuntime();
    const response = await postToken(
      rt,
      withoutClientId(codeForm(await signInForCode(rt))),
      goBasic("https://other.example/"),
    );
    // As with that client_id in the body: the code is refused (and, as any code presented, used up).
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a wrong Basic credential on a refresh without rotating the refresh token", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    await expectInvalidClient(await postToken(rt, refreshForm(tokens.refresh_token), goBasic(CLIENT_ID, "s3cret")));
    // Go's header alone names the client of a refresh, too.
    const refreshed = await postToken(rt, withoutClientId(refreshForm(tokens.refresh_token)), goBasic(CLIENT_ID));
    expect(refreshed.status).toBe(200);
  });

  it("leaves a Bearer header at POST /token alone, as before", async () => {
    const rt = await testRuntime();
    expect((await postToken(rt, codeForm(await signInForCode(rt)), { Authorization: "Bearer something" })).status).toBe(
      200,
    );
  });
});

describe("POST /auth and /revoke with Basic client credentials", () => {
  it("POST /auth takes the client_id from Go's header, and a refused one consumes nothing", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt, "profile");
    const form = codeForm(signedIn, { grant_type: null });
    const redeem = (headers: Record<string, string>, fields = form) =>
      endpoints.profileRedemption(post("/auth", fields, headers), rt);
    await expectInvalidClient(await redeem(goBasic(CLIENT_ID, "s3cret")));
    const accepted = await redeem(goBasic(CLIENT_ID), withoutClientId(form));
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ me: "https://jane.example/" });
    // Single use all the same.
    expect((await postAuth(rt, form)).status).toBe(400);
  });

  it("/revoke refuses a wrong Basic credential and revokes nothing; Go's header is accepted", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt);
    const revoke = (headers: Record<string, string>) =>
      endpoints.revoke(post("/revoke", { token: tokens.access_token }, headers), rt);
    await expectInvalidClient(await revoke(goBasic(CLIENT_ID, "s3cret")));
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
    expect((await revoke(goBasic(CLIENT_ID))).status).toBe(200);
    expect(await introspection(rt, tokens.access_token)).toEqual({ active: false });
  });
});

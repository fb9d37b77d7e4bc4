// Attack catalogue: tokens in URLs. A token in a query string lands in every request log, proxy
// log and browser history on its way (RFC 6750 2.3, RFC 7662 2.1), so the verification endpoints
// refuse one, whatever credential comes with it. The one exception is Indiekit's form, which
// sends the Bearer token and repeats it, byte for byte, as ?token=: the header is what is used.
import { describe, expect, it } from "vitest";
import { tokenEndpoint } from "../../../netlify/lib/endpoints/token.ts";
import { introspect } from "../../helpers/endpoints.ts";
import { BASE, bearer } from "../../helpers/requests.ts";
import { expectOAuthError, tokensFor } from "../../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../../helpers/runtime.ts";

const INTROSPECTION_TOKEN = "i".repeat(40);

/** The legacy verification, GET /token, with this query and credential. */
function legacyGet(rt: TestRuntime, query: string, credential: string | null): Promise<Response> {
  return tokenEndpoint(new Request(`${BASE}/token${query}`, { headers: bearer(credential) }), rt);
}

/** Refused with invalid_request, and the answer says nothing about the token in the URL. */
async function expectRefused(response: Response): Promise<void> {
  const text = await response.clone().text();
  await expectOAuthError(response, 400, "invalid_request");
  expect(text).not.toContain('"active"');
  expect(text).toMatch(/never in the URL/);
}

describe("tokens in URLs: refused at POST /introspect and GET /token", () => {
  it("Indiekit's form (the Bearer token, repeated exactly as ?token=) still works at both", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const query = `?token=${encodeURIComponent(access_token)}`;
    const introspected = await introspect(rt, access_token, {}, query);
    expect(introspected.status).toBe(200);
    expect(await introspected.json()).toMatchObject({ active: true, me: "https://jane.example/" });
    const legacy = await legacyGet(rt, query, access_token);
    expect(legacy.status).toBe(200);
    expect(await legacy.json()).toMatchObject({ active: true, me: "https://jane.example/" });
  });

  it("a token in the URL without any Bearer header is refused, not checked", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    await expectRefused(await introspect(rt, null, {}, `?token=${access_token}`));
    await expectRefused(await legacyGet(rt, `?token=${access_token}`, null));
  });

  it("the INTROSPECTION_TOKEN with the token to check in the URL is refused; in the body it works", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN } });
    const { access_token } = await tokensFor(rt);
    await expectRefused(await introspect(rt, INTROSPECTION_TOKEN, {}, `?token=${access_token}`));
    await expectRefused(await legacyGet(rt, `?token=${access_token}`, INTROSPECTION_TOKEN));
    expect(await (await introspect(rt, INTROSPECTION_TOKEN, { token: access_token })).json()).toMatchObject({
      active: true,
    });
  });

  it("a URL token that differs from the Bearer token, even by one character or beside a copy, is refused", async () => {
    const rt = await testRuntime();
    const mine = await tokensFor(rt);
    const other = await tokensFor(rt);
    const near = `${mine.access_token.slice(0, -1)}${mine.access_token.endsWith("A") ? "B" : "A"}`;
    for (const query of [
      `?token=${other.access_token}`,
      `?token=${near}`,
      `?token=${mine.access_token}&token=${other.access_token}`,
      "?token=",
    ]) {
      await expectRefused(await introspect(rt, mine.access_token, {}, query));
      await expectRefused(await legacyGet(rt, query, mine.access_token));
    }
  });

  it("a malformed Authorization header does not make a URL token acceptable", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    const response = await tokenEndpoint(
      new Request(`${BASE}/token?token=${access_token}`, { headers: { Authorization: `Basic ${access_token}` } }),
      rt,
    );
    await expectRefused(response);
  });
});

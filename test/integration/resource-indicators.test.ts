// Resource indicators (RFC 8707) at /auth and /token, a code issued without scope at /token,
// the metadata MCP clients read, and a Client ID Metadata Document spelled otherwise than the
// request's client_id: in-process against the real local Blobs server.
import { describe, expect, it } from "vitest";
import type { ClientInfo } from "../../netlify/lib/core/client-shape.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { approvedBefore } from "../helpers/approved-app.ts";
import { approve, authorize, endpoints, introspect, postAuth, postToken, signedRequest } from "../helpers/endpoints.ts";
import {
  authorizationParams,
  CLIENT_ID,
  codeForm,
  decodePayload,
  pkcePair,
  REDIRECT_URI,
  redirectParams,
  refreshForm,
  type SignedIn,
} from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { expectOAuthError } from "../helpers/tokens.ts";

const RESOURCE = "https://jane.example/mcp";
/** The resource servers' INTROSPECTION_TOKEN: only it is told a bound token's `aud`. */
const RESOURCE_SERVER = "r".repeat(40);
const OTHER_RESOURCE = "https://jane.example/other";

/** A client that publishes REDIRECT_URI (errors go back to it once approved before there). */
async function publishingClient(clientId: URL): Promise<ClientInfo> {
  return { clientId: clientId.href, redirectUris: [REDIRECT_URI], fetched: true };
}

function clientError(response: Response, error: string): URLSearchParams {
  expect(response.status).toBe(302);
  const params = redirectParams(response);
  expect(params.get("error")).toBe(error);
  return params;
}

/** GET /auth with `overrides`, approved with every requested scope ticked. */
async function signIn(rt: TestRuntime, overrides: Record<string, string | null> = {}): Promise<SignedIn> {
  const { verifier, challenge } = pkcePair();
  const scope = overrides.scope === undefined ? "profile create" : overrides.scope;
  const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, ...overrides }));
  const response = await approve(rt, request, { scopes: scope ? scope.split(" ") : [] });
  return { code: redirectParams(response).get("code")!, verifier };
}

/** What a resource server asking with its credential learns of a token. */
async function introspection(rt: TestRuntime, token: string): Promise<Record<string, unknown>> {
  const response = await introspect(rt, RESOURCE_SERVER, { token });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function tokens(
  rt: TestRuntime,
  signedIn: SignedIn,
  overrides: Record<string, string | null> = {},
): Promise<Record<string, string>> {
  const response = await postToken(rt, codeForm(signedIn, overrides));
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}

describe("GET /auth with resource (RFC 8707)", () => {
  it("carries the resource, exactly as sent, in the signed request the sign-in page shows", async () => {
    const rt = await testRuntime({ discover: publishingClient });
    for (const resource of [
      RESOURCE,
      "https://jane.example",
      "http://127.0.0.1:8787/mcp?v=1",
      "http://localhost:8888/mcp",
      "http://[::1]:3000/",
      "https://jane.example/@me/mcp",
    ]) {
      expect(decodePayload(await signedRequest(rt, authorizationParams({ resource }))).resource).toBe(resource);
    }
    expect(decodePayload(await signedRequest(rt, authorizationParams())).resource).toBeUndefined();
  });

  it.each([
    ["not absolute", "/mcp"],
    ["scheme only", "https:jane.example/mcp"],
    ["with a fragment", `${RESOURCE}#tools`],
    ["not http(s)", "urn:example:mcp"],
    ["empty", ""],
    ["with whitespace", "https://jane.example/m cp"],
    ["with user information that makes another host read as the owner's", "https://jane.example@evil.example/mcp"],
    ["with a name and password", "https://jane:secret@evil.example/mcp"],
    ["with an empty user information", "https://@evil.example/mcp"],
    ["over plain http to a host on the network", "http://jane.example/mcp"],
    ["over plain http to a name that only starts like loopback", "http://localhost.evil.example/mcp"],
  ])("refuses a resource %s with invalid_target, back to the client", async (_name, resource) => {
    const params = clientError(
      await authorize(
        await approvedBefore(await testRuntime({ discover: publishingClient })),
        authorizationParams({ resource }),
      ),
      "invalid_target",
    );
    expect(params.get("state")).toBe("state-123");
  });

  it("refuses more than one resource with invalid_target (a grant is for one resource)", async () => {
    const params = authorizationParams({ resource: RESOURCE });
    params.append("resource", OTHER_RESOURCE);
    clientError(
      await authorize(await approvedBefore(await testRuntime({ discover: publishingClient })), params),
      "invalid_target",
    );
  });

  it("refuses a resource without a scope before the person signs in, saying why (invalid_scope)", async () => {
    const params = clientError(
      await authorize(
        await approvedBefore(await testRuntime({ discover: publishingClient })),
        authorizationParams({ resource: RESOURCE, scope: null }),
      ),
      "invalid_scope",
    );
    expect(params.get("error_description")).toContain("scopes_supported");
    // Without a resource, a request without scope is a sign-in, as IndieAuth has it.
    expect(
      decodePayload(
        await signedRequest(await testRuntime({ discover: publishingClient }), authorizationParams({ scope: null })),
      ).scopes,
    ).toEqual([]);
  });
});

describe("POST /token with resource", () => {
  it("records the resource on the code and the grant, and introspection answers it as aud", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const body = await tokens(rt, await signIn(rt, { resource: RESOURCE }), { resource: RESOURCE });
    const grant = (await rt.store.get(RECORDS.grant.key(body.access_token!.slice(4, 26)))) as Record<string, unknown>;
    expect(grant.resource).toBe(RESOURCE);
    expect(await introspection(rt, body.access_token!)).toMatchObject({
      active: true,
      client_id: CLIENT_ID,
      aud: RESOURCE,
    });
  });

  it("keeps the resource when the token request names none", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const body = await tokens(rt, await signIn(rt, { resource: RESOURCE }));
    expect((await introspection(rt, body.access_token!)).aud).toBe(RESOURCE);
  });

  it("gives no aud to a token approved for no resource", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const body = await tokens(rt, await signIn(rt));
    expect(await introspection(rt, body.access_token!)).not.toHaveProperty("aud");
  });

  it("refuses another resource, or one the code was not issued for, with invalid_target, and the code stays good", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const signedIn = await signIn(rt, { resource: RESOURCE });
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { resource: OTHER_RESOURCE })),
      400,
      "invalid_target",
    );
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { resource: `${RESOURCE}/` })),
      400,
      "invalid_target",
    );
    expect((await introspection(rt, (await tokens(rt, signedIn, { resource: RESOURCE })).access_token!)).aud).toBe(
      RESOURCE,
    );

    const unbound = await signIn(rt);
    await expectOAuthError(await postToken(rt, codeForm(unbound, { resource: RESOURCE })), 400, "invalid_target");
    expect((await introspection(rt, (await tokens(rt, unbound)).access_token!)).active).toBe(true);
  });

  it("refuses a malformed resource with invalid_target, saying what is wrong with it", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const signedIn = await signIn(rt, { resource: RESOURCE });
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { resource: `${RESOURCE}#x` })),
      400,
      "invalid_target",
    );
    for (const [resource, said] of [
      ["https://jane.example@evil.example/mcp", "user information"],
      ["http://jane.example/mcp", "https"],
    ]) {
      const refused = await postToken(rt, codeForm(signedIn, { resource: resource! }));
      await expectOAuthError(refused.clone(), 400, "invalid_target");
      expect(((await refused.json()) as { error_description: string }).error_description).toContain(said);
    }
  });

  it("keeps the resource across refresh, which may repeat it but never change or widen it", async () => {
    const rt = await testRuntime({ env: { INTROSPECTION_TOKEN: RESOURCE_SERVER } });
    const first = await tokens(rt, await signIn(rt, { resource: RESOURCE }));
    const kept = await postToken(rt, refreshForm(first.refresh_token!));
    expect(kept.status).toBe(200);
    const second = (await kept.json()) as Record<string, string>;
    expect((await introspection(rt, second.access_token!)).aud).toBe(RESOURCE);
    const repeated = (await (
      await postToken(rt, refreshForm(second.refresh_token!, { resource: RESOURCE }))
    ).json()) as Record<string, string>;
    expect((await introspection(rt, repeated.access_token!)).aud).toBe(RESOURCE);
    // Another resource is refused, and the refresh token is not used up by the refusal.
    await expectOAuthError(
      await postToken(rt, refreshForm(repeated.refresh_token!, { resource: OTHER_RESOURCE })),
      400,
      "invalid_target",
    );
    expect((await postToken(rt, refreshForm(repeated.refresh_token!))).status).toBe(200);

    // A grant approved for no resource cannot be turned into one for a resource the owner never saw.
    const unbound = await tokens(rt, await signIn(rt));
    await expectOAuthError(
      await postToken(rt, refreshForm(unbound.refresh_token!, { resource: RESOURCE })),
      400,
      "invalid_target",
    );
  });
});

describe("a code issued without a scope (spec 5.3.3) at POST /token", () => {
  it("is refused before it is used up: it still redeems at the authorization endpoint", async () => {
    const rt = await testRuntime();
    const signedIn = await signIn(rt, { scope: null });
    const refused = await postToken(rt, codeForm(signedIn));
    await expectOAuthError(refused.clone(), 400, "invalid_grant");
    expect(((await refused.json()) as Record<string, string>).error_description).toContain(
      "redeem it at the authorization endpoint",
    );
    const profile = await postAuth(rt, codeForm(signedIn, { grant_type: null }));
    expect(profile.status).toBe(200);
    expect(await profile.json()).toEqual({ me: "https://jane.example/" });
  });

  it("a code whose scopes the owner all unticked, for a resource, is refused at /token and not used up", async () => {
    const rt = await testRuntime();
    const { verifier, challenge } = pkcePair();
    const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, resource: RESOURCE }));
    const code = redirectParams(await approve(rt, request, { scopes: [] })).get("code")!;
    await expectOAuthError(await postToken(rt, codeForm({ code, verifier })), 400, "invalid_grant");
    expect((await postAuth(rt, codeForm({ code, verifier }, { grant_type: null }))).status).toBe(200);
  });
});

describe("metadata for MCP clients", () => {
  it("advertises Client ID Metadata Documents and public clients at the token endpoint", async () => {
    const rt = await testRuntime();
    const metadata = (await (
      await endpoints.metadata(new Request("https://auth.jane.example/.well-known/oauth-authorization-server"), rt)
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(["none", "private_key_jwt"]);
  });
});

describe("a Client ID Metadata Document and the request's client_id", () => {
  const document = (clientId: URL): Promise<ClientInfo> =>
    Promise.resolve({
      clientId: clientId.href,
      name: "Doc App",
      redirectUris: ["https://elsewhere.example/callback"],
      fetched: true,
      metadataDocument: true,
    });

  it("counts only for the client_id spelled exactly as the document names it (simple string comparison)", async () => {
    const rt = await testRuntime({ discover: document });
    const exact = "https://app.example.com/client.json";
    const request = decodePayload(
      await signedRequest(
        rt,
        authorizationParams({ client_id: exact, redirect_uri: "https://elsewhere.example/callback" }),
      ),
    );
    expect(request.client).toEqual({ name: "Doc App" });
    const response = await authorize(
      rt,
      authorizationParams({
        client_id: "https://APP.example.com/client.json",
        redirect_uri: "https://elsewhere.example/callback",
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      "The app&#39;s metadata document was not used: the request&#39;s client_id is not spelled exactly as the document&#39;s",
    );
  });
});

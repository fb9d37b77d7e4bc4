// offline_access and the default scope of a resource request, in-process against the real
// local Blobs server (docs/endpoints.md): offline_access is listed in the metadata, ticked by
// default, and a request that names it gets a refresh token only if the owner leaves it ticked
// (a request that never names it, as IndieAuth clients do, still gets one); a request for a
// resource on the owner's site that names no scope granting access there gets the scopes the
// resource lists in its own RFC 9728 metadata (served here by a local server, with the
// resource API's own document builder), or invalid_scope before any page, saying what to publish.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookUpResourceScopes } from "../../netlify/lib/clients/resource-scopes.ts";
import { fetchDocument, type Fetcher } from "../../netlify/lib/clients/safe-fetch.ts";
import { shownRequest } from "../../netlify/lib/pages/sign-in-fragment.ts";
import { metadataDocument } from "../../netlify/lib/resource/metadata.ts";
import { approvedBefore } from "../helpers/approved-app.ts";
import { approve, authorize, endpoints, introspect, postToken, signedRequest } from "../helpers/endpoints.ts";
import {
  authorizationParams,
  codeForm,
  decodePayload,
  pkcePair,
  redirectParams,
  refreshForm,
  REDIRECT_URI,
  type Tokens,
} from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { expectOAuthError, introspection } from "../helpers/tokens.ts";

const ISSUER = "https://auth.jane.example/";
/** The resource servers' INTROSPECTION_TOKEN: only it is told a bound token's `aud`. */
const RESOURCE_SERVER = "r".repeat(40);

/** What the local server publishes, by metadata path: documents the resource API would write. */
const DOCUMENTS: Record<string, unknown> = {
  "/mcp": metadataDocument({ resource: "/mcp", scopes: ["mcp:tools", "create"] }, "https://jane.example/mcp", ISSUER),
  "/cached": metadataDocument({ resource: "/cached", scopes: ["read"] }, "https://jane.example/cached", ISSUER),
  "/no-scopes": metadataDocument({ resource: "/no-scopes" }, "https://jane.example/no-scopes", ISSUER),
  "/only-offline": metadataDocument(
    { resource: "/only-offline", scopes: ["offline_access"] },
    "https://jane.example/only-offline",
    ISSUER,
  ),
  "/misnamed": metadataDocument(
    { resource: "/elsewhere", scopes: ["create"] },
    "https://jane.example/elsewhere",
    ISSUER,
  ),
  "/blog-mcp": metadataDocument(
    { resource: "/blog-mcp", scopes: ["mcp"] },
    "https://auth.jane.example/blog-mcp",
    ISSUER,
  ),
};

let server: Server;
let port: number;
const fetched: string[] = [];

/** Reaches the local server for any https name, as the address guard would let it reach a public one. */
const localFetcher: Fetcher = async (url) => {
  fetched.push(url.href);
  const local = new URL(url);
  local.protocol = "http:";
  local.hostname = "127.0.0.1";
  local.port = String(port);
  const doc = await fetchDocument(local, { policy: (ip) => ip === "127.0.0.1", accept: "application/json" });
  return { ...doc, url: url.href };
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? "").replace("/.well-known/oauth-protected-resource", "");
    const doc = req.url?.startsWith("/.well-known/oauth-protected-resource/") ? DOCUMENTS[path] : undefined;
    res.writeHead(doc ? 200 : 404, { "Content-Type": "application/json" });
    res.end(JSON.stringify(doc ?? { error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The auth function's runtime: resource metadata read through the real lookup. */
async function runtime(build: "standalone" | "plugin" = "standalone"): Promise<TestRuntime> {
  const rt = await testRuntime({
    build,
    env: { INTROSPECTION_TOKEN: RESOURCE_SERVER },
    resourceScopes: (resource) => lookUpResourceScopes(resource, { fetcher: localFetcher }),
  });
  return approvedBefore(rt);
}

/** GET /auth, the approve step with these scopes ticked, and the code redeemed at /token. */
async function tokensAfter(rt: TestRuntime, params: Record<string, string | null>, ticked: string[]): Promise<Tokens> {
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, ...params }));
  const code = redirectParams(await approve(rt, request, { scopes: ticked })).get("code")!;
  const resource: Record<string, string> = params.resource ? { resource: params.resource } : {};
  const response = await postToken(rt, codeForm({ code, verifier }, resource));
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
}

function sentBack(response: Response, error: string): string {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("state")).toBe("state-123");
  expect(location.searchParams.get("iss")).toBe(ISSUER);
  return location.searchParams.get("error_description") ?? "";
}

describe("offline_access", () => {
  it("is in the metadata's scopes_supported", async () => {
    const body = (await (
      await endpoints.metadata(
        new Request("https://auth.jane.example/.well-known/oauth-authorization-server"),
        await testRuntime(),
      )
    ).json()) as { scopes_supported: string[] };
    expect(body.scopes_supported).toContain("offline_access");
  });

  it("claude.ai's scope with a leading space: parsed, and shown ticked in plain words", async () => {
    const rt = await runtime();
    const token = await signedRequest(rt, authorizationParams({ scope: " create  offline_access " }));
    expect(decodePayload(token).scopes).toEqual(["create", "offline_access"]);
    const { KNOWN_SCOPES, tickedByDefault } = await import("../../netlify/lib/protocol/scopes.ts");
    expect(KNOWN_SCOPES.offline_access).toBe("Stay connected: renew access without asking you again");
    expect(tickedByDefault(shownRequest(token)!)).toEqual(["create", "offline_access"]);
  });

  it("left ticked: a refresh token, which refreshes", async () => {
    const rt = await runtime();
    const tokens = await tokensAfter(rt, { scope: "create offline_access" }, ["create", "offline_access"]);
    expect(tokens.refresh_token).toMatch(/^irt_/);
    expect(tokens.scope).toBe("create offline_access");
    const refreshed = await postToken(rt, refreshForm(tokens.refresh_token));
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as Tokens).refresh_token).toMatch(/^irt_/);
  });

  it("asked for and unticked by the owner: no refresh token; the access token works until it expires", async () => {
    const rt = await runtime();
    const tokens = await tokensAfter(rt, { scope: "create offline_access" }, ["create"]);
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.scope).toBe("create");
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true, scope: "create" });
  });

  it("never asked for (an IndieAuth client such as Quill): a refresh token as before", async () => {
    const rt = await runtime();
    const tokens = await tokensAfter(rt, { scope: "create" }, ["create"]);
    expect(tokens.refresh_token).toMatch(/^irt_/);
  });

  it("alone, without a resource: invalid_scope before any page", async () => {
    expect(
      sentBack(await authorize(await runtime(), authorizationParams({ scope: "offline_access" })), "invalid_scope"),
    ).toMatch(/offline_access alone/);
  });

  it("a code whose only scope left ticked is offline_access buys no token", async () => {
    const rt = await runtime();
    const { verifier, challenge } = pkcePair();
    const request = await signedRequest(
      rt,
      authorizationParams({ code_challenge: challenge, scope: "create offline_access" }),
    );
    const code = redirectParams(await approve(rt, request, { scopes: ["offline_access"] })).get("code")!;
    await expectOAuthError(await postToken(rt, codeForm({ code, verifier })), 400, "invalid_grant");
  });
});

describe("a resource request with no scope granting access: the resource's own default", () => {
  it.each([
    ["no scope at all (Claude Code)", null, ["mcp:tools", "create"]],
    [
      "offline_access alone, with claude.ai's leading space",
      " offline_access",
      ["mcp:tools", "create", "offline_access"],
    ],
  ])("%s: the scopes its metadata lists, ticked on the page", async (_name, scope, expected) => {
    const rt = await runtime();
    const token = await signedRequest(rt, authorizationParams({ scope, resource: "https://jane.example/mcp" }));
    const shown = shownRequest(token)!;
    expect(shown.scopes).toEqual(expected);
    expect(shown.defaultScopes).toEqual(["mcp:tools", "create"]);
    const { tickedByDefault } = await import("../../netlify/lib/protocol/scopes.ts");
    expect(tickedByDefault(shown)).toEqual(expected);
  });

  it("the token is issued with them, for that resource", async () => {
    const rt = await runtime();
    const tokens = await tokensAfter(rt, { scope: null, resource: "https://jane.example/mcp" }, [
      "mcp:tools",
      "create",
    ]);
    expect(tokens.scope).toBe("mcp:tools create");
    expect(tokens.refresh_token).toMatch(/^irt_/);
    // As the resource server asks, with its INTROSPECTION_TOKEN: the token is for it.
    const verified = await introspect(rt, RESOURCE_SERVER, { token: tokens.access_token });
    expect(await verified.json()).toMatchObject({
      active: true,
      scope: "mcp:tools create",
      aud: "https://jane.example/mcp",
    });
  });

  it("the metadata is read through the lookup once, then reused for a while", async () => {
    const rt = await runtime();
    const before = fetched.filter((url) => url.endsWith("/cached")).length;
    await signedRequest(rt, authorizationParams({ scope: null, resource: "https://jane.example/cached" }));
    await signedRequest(rt, authorizationParams({ scope: null, resource: "https://jane.example/cached" }));
    expect(fetched.filter((url) => url.endsWith("/cached")).length - before).toBe(1);
    expect(fetched).toContain("https://jane.example/.well-known/oauth-protected-resource/cached");
  });

  it.each([
    ["metadata without scopes_supported", "https://jane.example/no-scopes", /no scopes_supported/],
    ["metadata listing only offline_access", "https://jane.example/only-offline", /lists no scopes/],
    [
      "metadata naming another resource",
      "https://jane.example/misnamed",
      /names the resource "https:\/\/jane.example\/elsewhere"/,
    ],
    ["no metadata at all (404)", "https://jane.example/missing", /could not be read/],
  ])("%s: invalid_scope to the app, saying what to publish", async (_name, resource, why) => {
    const rt = await runtime();
    const description = sentBack(await authorize(rt, authorizationParams({ scope: null, resource })), "invalid_scope");
    expect(description).toMatch(why);
    expect(description).toContain(
      `scopes_supported of its protected resource metadata (RFC 9728) at https://jane.example/.well-known/oauth-protected-resource${new URL(resource).pathname}`,
    );
  });

  it("a resource off the owner's site: invalid_scope, and nothing fetched", async () => {
    const before = fetched.length;
    const description = sentBack(
      await authorize(await runtime(), authorizationParams({ scope: null, resource: "https://elsewhere.example/mcp" })),
      "invalid_scope",
    );
    expect(description).toMatch(/not on https:\/\/jane.example/);
    expect(fetched.length).toBe(before);
  });

  it("the blog this server is added to (shared origin) is the owner's site; a standalone server's own host is not", async () => {
    const shared = await runtime("plugin");
    expect(
      decodePayload(
        await signedRequest(
          shared,
          authorizationParams({ scope: null, resource: "https://auth.jane.example/blog-mcp" }),
        ),
      ).scopes,
    ).toEqual(["mcp"]);
    sentBack(
      await authorize(
        await runtime(),
        authorizationParams({ scope: null, resource: "https://auth.jane.example/blog-mcp" }),
      ),
      "invalid_scope",
    );
  });

  it("a scope that grants access is used as asked, without a lookup", async () => {
    const before = fetched.length;
    expect(
      decodePayload(
        await signedRequest(
          await runtime(),
          authorizationParams({ scope: "create offline_access", resource: "https://jane.example/mcp" }),
        ),
      ).scopes,
    ).toEqual(["create", "offline_access"]);
    expect(fetched.length).toBe(before);
  });
});

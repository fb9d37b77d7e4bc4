// The sign-in half over real HTTP, through `netlify dev`: routing from netlify.toml, headers
// from netlify.toml, the static page and the functions together.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { startNetlifyDev, type NetlifyDev } from "../helpers/netlify-dev.ts";
import { pkcePair } from "../helpers/requests.ts";

let server: NetlifyDev;
const CLIENT_ID = "http://127.0.0.1:5173/";
const REDIRECT_URI = "http://127.0.0.1:5173/callback";

beforeAll(async () => {
  server = await startNetlifyDev();
});
afterAll(async () => {
  await server?.stop();
});

function authorizationUrl(extra: Record<string, string> = {}, challenge = pkcePair().challenge): string {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "xyz",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "profile create",
    me: "https://jane.example/",
    ...extra,
  });
  return `${server.baseUrl}/auth?${params}`;
}

async function signIn(url: string, fields: Record<string, string | string[]> = {}): Promise<Response> {
  const start = await fetch(url, { redirect: "manual" });
  expect(start.status).toBe(303);
  const request = new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request")!;
  const body = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
  for (const [name, value] of Object.entries(fields)) {
    body.delete(name);
    for (const v of [value].flat()) body.append(name, v);
  }
  return fetch(`${server.baseUrl}/auth/approve`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { Origin: server.baseUrl, "Sec-Fetch-Site": "same-origin" },
  });
}

describe("through netlify dev", () => {
  it("serves the metadata document, readable cross-origin and not cached", async () => {
    const response = await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const metadata = await response.json();
    expect(metadata).toMatchObject({
      issuer: `${server.baseUrl}/`,
      authorization_endpoint: `${server.baseUrl}/auth`,
      token_endpoint: `${server.baseUrl}/token`,
      introspection_endpoint: `${server.baseUrl}/introspect`,
      revocation_endpoint: `${server.baseUrl}/revoke`,
      revocation_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
      userinfo_endpoint: `${server.baseUrl}/userinfo`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.scopes_supported).toContain("profile");
  });

  it("serves the home page with the three link tags for this deployment", async () => {
    const html = await (await fetch(`${server.baseUrl}/`)).text();
    // The tags are shown as text, so they arrive escaped; read them back as a person sees them.
    const shown = html
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&#34;|&quot;/g, '"');
    expect(shown).toContain(
      `<link rel="indieauth-metadata" href="${server.baseUrl}/.well-known/oauth-authorization-server">`,
    );
    expect(shown).toContain(`<link rel="authorization_endpoint" href="${server.baseUrl}/auth">`);
    expect(shown).toContain(`<link rel="token_endpoint" href="${server.baseUrl}/token">`);
    expect(html).not.toContain('<link rel="token_endpoint"');
  });

  it("sends /auth without parameters to the home page", async () => {
    const response = await fetch(`${server.baseUrl}/auth`, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location")!, server.baseUrl).pathname).toBe("/indieauth/");
  });

  it("shows a 400 page for an unverifiable redirect_uri", async () => {
    const response = await fetch(authorizationUrl({ redirect_uri: "https://evil.example/cb" }), { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("does not publish");
  });

  it("serves the sign-in page with its security headers", async () => {
    const response = await fetch(`${server.baseUrl}/indieauth/sign-in/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    // Cache-Control is not checked here: netlify dev's static server overwrites it with its own
    // (production honours netlify.toml); test/unit/netlify-toml.test.ts checks the rule itself.
    const html = await response.text();
    expect(html).toContain('action="/auth/approve"');
    expect(html).not.toMatch(/<script>(?!<\/script>)/);
  });

  it("signs in: code, state and iss come back, and the code redeems at POST /auth once", async () => {
    const { verifier, challenge } = pkcePair();
    const response = await signIn(authorizationUrl({}, challenge), { scope: ["profile", "create"] });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get("state")).toBe("xyz");
    expect(location.searchParams.get("iss")).toBe(`${server.baseUrl}/`);
    const code = location.searchParams.get("code")!;

    const redeem = () =>
      fetch(`${server.baseUrl}/auth`, {
        method: "POST",
        headers: { Accept: "application/json" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          client_id: CLIENT_ID,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
        }),
      });
    const first = await redeem();
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({
      me: "https://jane.example/",
      profile: { name: "Jane Doe", url: "https://jane.example/", photo: "https://jane.example/photo.jpg" },
    });
    const second = await redeem();
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("refuses a cross-site post to the approve step", async () => {
    const response = await signIn(authorizationUrl(), {});
    expect(response.status).toBe(302);
    const start = await fetch(authorizationUrl(), { redirect: "manual" });
    const request = new URLSearchParams(start.headers.get("location")!.split("#")[1]).get("request")!;
    const crossSite = await fetch(`${server.baseUrl}/auth/approve`, {
      method: "POST",
      body: new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD }),
      redirect: "manual",
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
  });
});

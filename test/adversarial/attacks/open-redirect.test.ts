// Attack catalogue: open redirect. Every way to make the server send a person, or a code, to a
// redirect_uri that was not verified: another host written so that it looks like the client's
// (encoded, with userinfo, backslashes, mixed case, a trailing dot, IDN look-alikes), schemes
// that run code (javascript:, data:), an unverified URI hidden behind another error, and the
// approve step's form. (Error answers redirected to a verified URI: error-redirects.test.ts.) Each attempt must end on a page of ours, with no Location and no code.
import { describe, expect, it } from "vitest";
import { parseClientDocument } from "../../../netlify/lib/clients/client-info.ts";
import type { ClientInfo } from "../../../netlify/lib/core/client-shape.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { approve, authorize, signedRequest } from "../../helpers/endpoints.ts";
import { authorizationParams, CLIENT_ID, decodePayload } from "../../helpers/requests.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";

/** The client publishes these redirect URIs (besides its own origin, which is always allowed). */
function publishing(...redirectUris: string[]) {
  return async (clientId: URL): Promise<ClientInfo> => ({
    clientId: clientId.href,
    redirectUris,
    fetched: true,
    name: "App",
  });
}

async function expectNotSent(
  rt: TestRuntime,
  overrides: Record<string, string | null>,
  params = authorizationParams(overrides),
): Promise<void> {
  const response = await authorize(rt, params);
  expect(response.status).toBe(400);
  expect(response.headers.get("location")).toBeNull();
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await response.text()).toContain("you were not sent back to the app");
  expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
}

describe("open redirect: another host dressed up as the client's (client https://app.example.com/, nothing published)", () => {
  it.each([
    ["a plainly different host", "https://evil.example/callback"],
    ["percent-encoded dots that decode to another host", "https://evil%2Eexample/callback"],
    [
      "the client's host as a percent-encoded prefix of another domain",
      "https://app.example.com%2Eevil.example/callback",
    ],
    ["a percent-encoded @ in the host", "https://app.example.com%40evil.example/callback"],
    ["the client's host as userinfo before another host", "https://app.example.com@evil.example/callback"],
    ["the client's host as user:password before another host", "https://app.example.com:443@evil.example/callback"],
    ["backslashes for slashes (https:\\\\evil.example)", "https:\\\\evil.example\\callback"],
    [
      "a backslash before another host (app.example.com\\.evil.example)",
      "https://evil.example\\.app.example.com/callback",
    ],
    ["mixed case of another host", "HTTPS://EVIL.Example/callback"],
    ["the client's host with a trailing dot", "https://app.example.com./callback"],
    ["an IDN look-alike (Cyrillic а in app)", "https://\u0430pp.example.com/callback"],
    ["an IDN look-alike already in punycode", "https://xn--pp-6kc.example.com/callback"],
    ["the client's host as a subdomain of another", "https://app.example.com.evil.example/callback"],
    ["another subdomain of the client's domain", "https://evil.example.com/callback"],
    ["http instead of https", "http://app.example.com/callback"],
    ["another port", "https://app.example.com:8443/callback"],
    ["a custom scheme with the client's host", "app://app.example.com/callback"],
  ])("%s: %s", async (_name, redirectUri) => {
    await expectNotSent(await fastRuntime(), { redirect_uri: redirectUri });
  });

  it("the client's own host behind userinfo (https://evil.example@app.example.com/) is refused too: no URI with credentials is ever used", async () => {
    // Same origin as the client, so only the userinfo rule stops it.
    await expectNotSent(await fastRuntime(), { redirect_uri: "https://evil.example@app.example.com/callback" });
    await expectNotSent(await fastRuntime(), { redirect_uri: "https://evil.example:pw@app.example.com/callback" });
  });

  it("a backslash that a WHATWG parser reads as a path (https://app.example.com\\@evil.example/) is refused: other parsers read it as userinfo", async () => {
    expect(new URL("https://app.example.com\\@evil.example/").hostname).toBe("app.example.com");
    await expectNotSent(await fastRuntime(), { redirect_uri: "https://app.example.com\\@evil.example/" });
  });

  it("a client_id with a trailing dot does not vouch for the host without it, nor the other way round", async () => {
    await expectNotSent(await fastRuntime(), {
      client_id: "https://app.example.com./",
      redirect_uri: "https://app.example.com/callback",
    });
  });

  it("whitespace or control characters that a parser would strip are refused, not silently removed", async () => {
    for (const redirectUri of [
      "https://evil.example/\tcallback",
      " https://app.example.com/callback",
      "https://app.example.com/call\nback",
      "java\tscript:alert(1)",
    ]) {
      await expectNotSent(await fastRuntime(), { redirect_uri: redirectUri });
    }
  });

  it("the client's own host in mixed case is the same origin, and the code goes to that canonical host only", async () => {
    const rt = await fastRuntime();
    const request = await signedRequest(rt, authorizationParams({ redirect_uri: "HTTPS://APP.Example.COM/callback" }));
    const location = new URL((await approve(rt, request)).headers.get("location")!);
    expect(location.origin).toBe("https://app.example.com");
  });
});

describe("open redirect: published redirect URIs match exactly", () => {
  const published = "https://other.example/cb";

  it.each([
    ["another path case", "https://other.example/CB"],
    ["a longer path", "https://other.example/cb/evil"],
    ["a dot segment that walks out of the published path", "https://other.example/cb/../evil"],
    ["an added query", "https://other.example/cb?next=https://evil.example/"],
    ["an added port", "https://other.example:8443/cb"],
    ["an IDN look-alike of the published host (Cyrillic о)", "https://\u043Ether.example/cb"],
    ["a trailing dot on the published host", "https://other.example./cb"],
    ["userinfo before the published host", "https://evil.example@other.example/cb"],
  ])("%s: %s", async (_name, redirectUri) => {
    await expectNotSent(await fastRuntime({ discover: publishing(published) }), { redirect_uri: redirectUri });
  });

  it("the published URI itself is accepted (the control for the cases above)", async () => {
    const rt = await fastRuntime({ discover: publishing(published) });
    expect(decodePayload(await signedRequest(rt, authorizationParams({ redirect_uri: published })))).toMatchObject({
      redirectUri: published,
    });
  });
});

describe("open redirect: another path on the client's host (a shared host: /~mallory/ beside /~alice/app/)", () => {
  const alice = "https://home.example/~alice/app/";
  const params = (redirectUri: string) => authorizationParams({ client_id: alice, redirect_uri: redirectUri });

  it("is refused when the client's document lists its redirect URIs and this one is not among them", async () => {
    const rt = await fastRuntime({ discover: publishing(`${alice}callback`) });
    const response = await authorize(rt, params("https://home.example/~mallory/collect"));
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("https://home.example/~mallory/collect");
  });

  it("is refused even when walking out of the client's path with dot segments", async () => {
    const rt = await fastRuntime({ discover: publishing(`${alice}callback`) });
    for (const sneaky of [`${alice}../../~mallory/collect`, `${alice}%2e%2e/%2e%2e/~mallory/collect`]) {
      expect((await authorize(rt, params(sneaky))).status, sneaky).toBe(400);
    }
  });

  it("is accepted, and shown on the consent page, when the client lists none (a loopback client is never fetched)", async () => {
    const rt = await fastRuntime();
    const request = await signedRequest(
      rt,
      authorizationParams({
        client_id: "http://127.0.0.1:3000/~alice/app/",
        redirect_uri: "http://127.0.0.1:3000/~mallory/collect",
      }),
    );
    expect(decodePayload(request)).toMatchObject({ redirectUri: "http://127.0.0.1:3000/~mallory/collect" });
  });

  it("the controls: a listed one (any query), and one under the client's path, are accepted", async () => {
    const rt = await fastRuntime({ discover: publishing(`${alice}callback`, "https://home.example/shared/callback") });
    for (const ok of ["https://home.example/shared/callback?state=1", `${alice}other`, `${alice}callback`]) {
      expect(decodePayload(await signedRequest(rt, params(ok)))).toMatchObject({ redirectUri: ok });
    }
  });
});

describe("open redirect: schemes that run code or carry content", () => {
  it.each([
    ["javascript:", "javascript:alert(document.cookie)"],
    ["javascript: in mixed case", "JaVaScRiPt:alert(1)"],
    ["javascript: with the client's host as an authority", "javascript://app.example.com/%0aalert(1)"],
    ["data: HTML", "data:text/html,<script>alert(1)</script>"],
    ["data: base64", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="],
    ["vbscript:", "vbscript:msgbox(1)"],
    ["blob: of the client's origin", "blob:https://app.example.com/0b1e5b1a"],
    ["file:", "file:///etc/passwd"],
  ])("%s is refused even when the client itself publishes it", async (_name, redirectUri) => {
    await expectNotSent(await fastRuntime({ discover: publishing(redirectUri) }), { redirect_uri: redirectUri });
  });

  it("a client document listing javascript: and data: redirect URIs has them dropped at discovery", async () => {
    const body = JSON.stringify({
      client_id: CLIENT_ID,
      redirect_uris: ["javascript:alert(1)", "data:text/html,x", "vbscript:x", "https://app.example.com/ok"],
    });
    const info = await parseClientDocument(
      { url: CLIENT_ID, status: 200, contentType: "application/json", linkHeaders: [], body },
      CLIENT_ID,
    );
    expect(info.redirectUris).toEqual(["https://app.example.com/ok"]);
    const html = `<link rel="redirect_uri" href="javascript:alert(1)"><link rel="redirect_uri" href="data:text/html,x">`;
    const fromHtml = await parseClientDocument(
      {
        url: CLIENT_ID,
        status: 200,
        contentType: "text/html",
        linkHeaders: ['<javascript:alert(2)>; rel="redirect_uri"'],
        body: html,
      },
      CLIENT_ID,
    );
    expect(fromHtml.redirectUris).toEqual([]);
  });
});

describe("open redirect: an unverified redirect_uri is never used, whatever else is wrong", () => {
  it("an unverified redirect_uri with a bad response_type gets a page, not an error redirect", async () => {
    await expectNotSent(await fastRuntime(), { redirect_uri: "https://evil.example/callback", response_type: "token" });
  });

  it("an unverified redirect_uri with a missing state and PKCE gets a page, not an error redirect", async () => {
    await expectNotSent(await fastRuntime(), {
      redirect_uri: "https://evil.example/callback",
      state: null,
      code_challenge: null,
    });
  });

  it("redirect_uri given twice (the client's, then another) gets a page", async () => {
    const params = authorizationParams();
    params.append("redirect_uri", "https://evil.example/callback");
    await expectNotSent(await fastRuntime(), {}, params);
  });

  it("client_id given twice gets a page", async () => {
    const params = authorizationParams({ redirect_uri: "https://evil.example/callback" });
    params.append("client_id", "https://evil.example/");
    await expectNotSent(await fastRuntime(), {}, params);
  });
});

describe("open redirect: the approve step sends the code only where the signed request says", () => {
  it("a redirect_uri field added to the approve form is ignored", async () => {
    const rt = await fastRuntime();
    const request = await signedRequest(rt);
    const response = await approve(rt, request, {
      fields: { redirect_uri: "https://evil.example/steal", client_id: "https://evil.example/" },
    });
    expect(response.status).toBe(302);
    expect(new URL(response.headers.get("location")!).origin).toBe("https://app.example.com");
  });

  it("a signed request whose redirectUri was changed gets a page, no Location, no code", async () => {
    const rt = await fastRuntime();
    const [header, payload, signature] = (await signedRequest(rt)).split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    claims.redirectUri = "https://evil.example/steal";
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    for (const decision of ["approve", "deny"]) {
      const response = await approve(rt, forged, { decision });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
    }
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("a redirect_uri's own code and iss parameters cannot shadow ours", async () => {
    const rt = await fastRuntime();
    const request = await signedRequest(
      rt,
      authorizationParams({
        redirect_uri: "https://app.example.com/callback?code=attacker&iss=https://evil.example/&state=x",
      }),
    );
    const params = new URL((await approve(rt, request)).headers.get("location")!).searchParams;
    expect(params.getAll("code")).toHaveLength(1);
    expect(params.get("code")).toMatch(/^ic_/);
    expect(params.getAll("iss")).toEqual(["https://auth.jane.example/"]);
    expect(params.getAll("state")).toEqual(["state-123"]);
  });
});

// What older clients and people do, in-process against the real local Blobs server: a client
// that asks for form-encoded answers gets its refusals form-encoded too; `post`, the older name
// of `create`, is understood; a double-clicked Approve gives one code and one grant; and a
// resource request without any credential gets the bare challenge of RFC 6750 3.1.
import { describe, expect, it } from "vitest";
import { KNOWN_SCOPES, isKnownScope } from "../../netlify/lib/protocol/scopes.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { sweepExpired } from "../../netlify/lib/platform/expiry-sweep.ts";
import {
  approve,
  endpoints,
  introspect,
  postToken,
  signedRequest,
  signInForCode,
  userinfo,
} from "../helpers/endpoints.ts";
import {
  authorizationParams,
  codeForm,
  pkcePair,
  post,
  redirectParams,
  refreshForm,
  type Tokens,
} from "../helpers/requests.ts";
import { introspection, tokensFor } from "../helpers/tokens.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const FORM = { Accept: "application/x-www-form-urlencoded" };
const MINUTE = 60 * 1000;

async function formBody(response: Response): Promise<URLSearchParams> {
  expect(response.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
  expect(response.headers.get("cache-control")).toBe("no-store");
  return new URLSearchParams(await response.text());
}

describe("a client that asks for form encoding gets its refusals form-encoded", () => {
  it.each([
    ["a missing grant_type", {}, 400, "invalid_request"],
    ["an unknown grant_type", { grant_type: "password" }, 400, "unsupported_grant_type"],
    [
      "a code that is not one",
      {
        grant_type: "authorization_code",
        code: "nope",
        client_id: "https://app.example.com/",
        redirect_uri: "https://app.example.com/callback",
        code_verifier: "a".repeat(43),
      },
      400,
      "invalid_grant",
    ],
  ])("POST /token, %s: %i %s, form-encoded", async (_name, fields, status, error) => {
    const response = await postToken(await testRuntime(), fields, FORM);
    expect(response.status).toBe(status);
    const body = await formBody(response);
    expect(body.get("error")).toBe(error);
    expect(body.get("error_description")).toBeTruthy();
  });

  it("a refused Basic credential too, with its challenge", async () => {
    const response = await postToken(
      await testRuntime(),
      {},
      { ...FORM, Authorization: `Basic ${Buffer.from("x:secret").toString("base64")}` },
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="indieauth"');
    expect((await formBody(response)).get("error")).toBe("invalid_client");
  });

  it("a code redeemed twice: the same refusal the JSON client gets, form-encoded", async () => {
    const rt = await testRuntime();
    const form = codeForm(await signInForCode(rt));
    expect((await postToken(rt, form, FORM)).status).toBe(200);
    const again = await postToken(rt, form, FORM);
    expect(again.status).toBe(400);
    expect((await formBody(again)).get("error")).toBe("invalid_grant");
  });

  it("stays JSON for a client that accepts JSON as well, or says nothing", async () => {
    const rt = await testRuntime();
    for (const accept of ["application/json", "application/x-www-form-urlencoded, application/json", "*/*"]) {
      const response = await postToken(rt, {}, { Accept: accept });
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(await response.json()).toMatchObject({ error: "invalid_request" });
    }
    expect((await postToken(rt, {})).headers.get("content-type")).toBe("application/json");
  });
});

describe("introspection without any credential (RFC 6750 3.1)", () => {
  it("answers 401 with the bare Bearer challenge and no error code or description", async () => {
    const rt = await testRuntime();
    const { access_token } = await tokensFor(rt);
    for (const response of [
      await introspect(rt, null, { token: access_token }),
      await endpoints.token(new Request("https://auth.jane.example/token"), rt),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="indieauth"');
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = (await response.json()) as Record<string, unknown>;
      // "SHOULD NOT include an error code or other error information".
      expect(body).toEqual({});
    }
  });

  it("still names the error for a credential that is not a Bearer token", async () => {
    const rt = await testRuntime();
    const response = await endpoints.introspect(
      post("/introspect", { token: "x" }, { Authorization: "Token abc" }),
      rt,
    );
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await response.json()).toMatchObject({ error: "invalid_token" });
  });

  it("/userinfo without a token: the same bare challenge", async () => {
    const response = await userinfo(await testRuntime(), null);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="indieauth"');
    expect(await response.json()).not.toHaveProperty("error");
  });
});

describe("`post`, the older name of `create`", () => {
  it("is a scope the sign-in page knows (ticked by default) and describes as creating posts", () => {
    expect(isKnownScope("post")).toBe(true);
    expect(KNOWN_SCOPES.post).toBe("Create posts");
  });

  it("is understood, not advertised: the metadata offers the current name only", async () => {
    const metadata = (await (
      await endpoints.metadata(
        new Request("https://auth.jane.example/.well-known/oauth-authorization-server"),
        await testRuntime(),
      )
    ).json()) as { scopes_supported: string[] };
    expect(metadata.scopes_supported).toContain("create");
    expect(metadata.scopes_supported).not.toContain("post");
  });

  it("granted, the token says `post create`: an endpoint checking either name lets it in", async () => {
    const rt = await testRuntime();
    const tokens = await tokensFor(rt, "profile post");
    expect(tokens.scope).toBe("profile post create");
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true, scope: "profile post create" });
    // Kept across a refresh.
    const refreshed = (await (await postToken(rt, refreshForm(tokens.refresh_token))).json()) as Tokens;
    expect(refreshed.scope).toBe("profile post create");
  });

  it("left unticked, neither name is granted; a client asking for `create` gets no `post`", async () => {
    const rt = await testRuntime();
    const { verifier, challenge } = pkcePair();
    const response = await approve(
      rt,
      await signedRequest(rt, authorizationParams({ scope: "profile post", code_challenge: challenge })),
      { scopes: ["profile"] },
    );
    const code = redirectParams(response).get("code")!;
    expect(((await (await postToken(rt, codeForm({ code, verifier }))).json()) as Tokens).scope).toBe("profile");
    expect((await tokensFor(rt, "profile create")).scope).toBe("profile create");
  });
});

describe("a double-clicked Approve", () => {
  async function signedWithVerifier(rt: TestRuntime): Promise<{ request: string; verifier: string }> {
    const { verifier, challenge } = pkcePair();
    return { request: await signedRequest(rt, authorizationParams({ code_challenge: challenge })), verifier };
  }

  it("two posts of one signed request answer with the same redirect: one code, one grant", async () => {
    const rt = await testRuntime();
    const { request, verifier } = await signedWithVerifier(rt);
    const first = await approve(rt, request, { scopes: ["profile", "create"] });
    const second = await approve(rt, request, { scopes: ["profile", "create"] });
    expect(first.status).toBe(302);
    expect(second.status).toBe(302);
    expect(second.headers.get("location")).toBe(first.headers.get("location"));
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);

    const code = redirectParams(second).get("code")!;
    expect((await postToken(rt, codeForm({ code, verifier }))).status).toBe(200);
    expect(await rt.store.list(RECORDS.grant.prefix)).toHaveLength(1);
  });

  it("two posts at the same moment: the same code", async () => {
    const rt = await testRuntime();
    const { request } = await signedWithVerifier(rt);
    const [a, b] = await Promise.all([
      approve(rt, request, { scopes: ["profile"] }),
      approve(rt, request, { scopes: ["profile"] }),
    ]);
    expect(redirectParams(a).get("code")).toBe(redirectParams(b).get("code"));
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);
  });

  it("a wrong password first, then Approve twice: still one code", async () => {
    const rt = await testRuntime();
    const { request } = await signedWithVerifier(rt);
    const back = await approve(rt, request, { password: "wrong" });
    // The page is sent the same request again, signed with what it should offer now.
    const again = new URLSearchParams(back.headers.get("location")!.split("#")[1]).get("request")!;
    const first = await approve(rt, again, { scopes: ["profile"] });
    const second = await approve(rt, request, { scopes: ["profile"] });
    expect(redirectParams(second).get("code")).toBe(redirectParams(first).get("code"));
  });

  it("once the app has redeemed the code, posting the request again shows a page and issues nothing", async () => {
    const rt = await testRuntime();
    const { request, verifier } = await signedWithVerifier(rt);
    const code = redirectParams(await approve(rt, request, { scopes: ["profile", "create"] })).get("code")!;
    const tokens = (await (await postToken(rt, codeForm({ code, verifier }))).json()) as Tokens;

    const late = await approve(rt, request, { scopes: ["profile", "create"] });
    expect(late.status).toBe(400);
    expect(late.headers.get("location")).toBeNull();
    expect(await late.text()).toMatch(/already approved this sign-in/);
    // The code was not handed out again, so nothing replayed it: the app's tokens still work.
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
  });

  it("once the code has expired unused, the request is not answered with a new one", async () => {
    const rt = await testRuntime();
    const { request } = await signedWithVerifier(rt);
    expect((await approve(rt, request, { scopes: ["profile"] })).status).toBe(302);
    rt.clock.advance(11 * MINUTE);
    const late = await approve(rt, request, { scopes: ["profile"] });
    expect(late.status).toBe(400);
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);
  });

  it("past its ten minutes the code cannot be redeemed, yet its record outlives a sweep until the request expires: no second code", async () => {
    const rt = await testRuntime();
    const { request, verifier } = await signedWithVerifier(rt);
    const code = redirectParams(await approve(rt, request, { scopes: ["profile"] })).get("code")!;
    rt.clock.advance(11 * MINUTE);
    // Housekeeping runs between the two: the record is kept for the request's fifteen minutes.
    await sweepExpired(rt.store, rt.now());
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);
    expect((await approve(rt, request, { scopes: ["profile"] })).status).toBe(400);
    const redeemed = await postToken(rt, codeForm({ code, verifier }));
    expect(redeemed.status).toBe(400);
    expect(await redeemed.json()).toMatchObject({
      error: "invalid_grant",
      error_description: "The authorization code has expired.",
    });
    rt.clock.advance(5 * MINUTE);
    await sweepExpired(rt.store, rt.now());
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(0);
  });

  it("a new sign-in from the app (a new request) gets a new code", async () => {
    const rt = await testRuntime();
    const a = redirectParams(await approve(rt, (await signedWithVerifier(rt)).request)).get("code");
    const b = redirectParams(await approve(rt, (await signedWithVerifier(rt)).request)).get("code");
    expect(a).not.toBe(b);
  });

  it("keeps the code out of the store: only its hash", async () => {
    const rt = await testRuntime();
    const code = redirectParams(await approve(rt, (await signedWithVerifier(rt)).request)).get("code")!;
    const keys = await rt.store.list("");
    expect(keys.some((key) => key.includes(code.slice(3)))).toBe(false);
    expect(keys).toContain(RECORDS.code.key(code));
    for (const key of keys) expect(JSON.stringify(await rt.store.get(key))).not.toContain(code.slice(3));
  });
});

describe("POST /auth keeps its JSON for clients that ask for nothing else", () => {
  it("answers a refusal as JSON when Accept is absent", async () => {
    const response = await endpoints.profileRedemption(post("/auth", {}), await testRuntime());
    expect(response.headers.get("content-type")).toBe("application/json");
  });
});

// Attack catalogue: authorization codes. Replay (one after the other, and many at once, at
// either redemption endpoint), expiry, redemption by another client_id, redirect_uri or PKCE
// verifier, and every attempt to get a code without S256 PKCE or to redeem one without it.
//
// The concurrent replays are settled by one conditional write (onlyIfNew), atomic on production
// Blobs and, through the store's per-key write lock, on the local server of the tests too.
import { describe, expect, it } from "vitest";
import { redeemCode, redemptionInput, type CodeRecord } from "../../../netlify/lib/protocol/codes.ts";
import { CodeAlreadyUsed, createGrant } from "../../../netlify/lib/protocol/grants.ts";
import { s256 } from "../../../netlify/lib/protocol/pkce.ts";
import { fastRuntime, publishingClient } from "../../helpers/attack-kit.ts";
import { approvedBefore } from "../../helpers/approved-app.ts";
import { approve, authorize, postAuth, postToken, signedRequest, signInForCode } from "../../helpers/endpoints.ts";
import {
  authorizationParams,
  CLIENT_ID,
  codeForm,
  pkcePair,
  REDIRECT_URI,
  redirectParams,
  type SignedIn,
  type Tokens,
} from "../../helpers/requests.ts";
import { expectOAuthError, introspection } from "../../helpers/tokens.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";

const MINUTE = 60 * 1000;

async function redeemed(response: Response): Promise<Tokens> {
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
}

/** A code that has been refused once can never be redeemed afterwards, even correctly. */
async function expectBurnt(rt: TestRuntime, signedIn: SignedIn): Promise<void> {
  await expectOAuthError(await postToken(rt, codeForm(signedIn)), 400, "invalid_grant");
}

describe("codes: replay", () => {
  it("a second redemption at /token is refused, and the tokens of the first are revoked", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const first = await redeemed(await postToken(rt, codeForm(signedIn)));
    await expectOAuthError(await postToken(rt, codeForm(signedIn)), 400, "invalid_grant");
    expect(await introspection(rt, first.access_token)).toEqual({ active: false });
    await expectOAuthError(
      await postToken(rt, { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: CLIENT_ID }),
      400,
      "invalid_grant",
    );
  });

  it("a code redeemed at POST /auth is refused at /token, and the other way round", async () => {
    const rt = await fastRuntime();
    const a = await signInForCode(rt);
    expect((await postAuth(rt, codeForm(a))).status).toBe(200);
    await expectOAuthError(await postToken(rt, codeForm(a)), 400, "invalid_grant");
    const b = await signInForCode(rt);
    expect((await postToken(rt, codeForm(b))).status).toBe(200);
    await expectOAuthError(await postAuth(rt, codeForm(b)), 400, "invalid_grant");
  });

  it("ten redemptions at once at /token: at most one succeeds, and nothing issued stays usable", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const responses = await Promise.all(Array.from({ length: 10 }, () => postToken(rt, codeForm(signedIn))));
    const ok = responses.filter((r) => r.status === 200);
    expect(ok.length).toBeLessThanOrEqual(1);
    for (const r of responses.filter((r) => r.status !== 200)) await expectOAuthError(r, 400, "invalid_grant");
    for (const r of ok)
      expect(await introspection(rt, ((await r.json()) as Tokens).access_token)).toEqual({ active: false });
    // One grant at most was ever created, and it is revoked.
    expect((await rt.store.list(RECORDS.grant.prefix)).length).toBeLessThanOrEqual(1);
  });

  it("ten redemptions at once at POST /auth and /token together: at most one succeeds", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? postAuth : postToken)(rt, codeForm(signedIn))),
    );
    expect(responses.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
  });

  it("a replay that lands between the first redemption's consumption and its grant: no grant is ever created", async () => {
    // The interleaving the concurrent tests may or may not hit, step by step: the first
    // redemption consumes the code; the replay finds it used and revokes the grant the first
    // allocated, which does not exist yet; the first then fails to create it.
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const input = redemptionInput(new URLSearchParams(codeForm(signedIn)));
    const first = await redeemCode(rt.store, input, rt.now(), { grantTypeOptional: false });
    const replay: unknown = await redeemCode(rt.store, input, rt.now(), { grantTypeOptional: false }).catch(
      (e: unknown) => e,
    );
    expect(replay).toBeInstanceOf(CodeAlreadyUsed);
    const grant = {
      id: first.grantId,
      clientId: first.record.clientId,
      me: first.record.me,
      scopes: first.record.scopes,
    };
    const created: unknown = await createGrant(rt.store, grant, rt.now(), {
      accessTokenTtlMs: MINUTE,
      refreshTokenTtlMs: MINUTE,
      keys: { refreshToken: new Uint8Array(32) },
    }).catch((e: unknown) => e);
    expect(created).toBeInstanceOf(CodeAlreadyUsed);
    expect((created as CodeAlreadyUsed).description).toBe((replay as CodeAlreadyUsed).description);
    expect(await rt.store.get(RECORDS.grant.key(first.grantId))).toMatchObject({ kind: "revoked-grant" });
  });

  it("a second token redemption with the right verifier before the first wrote its grant creates that grant, and the first then revokes it: no token stays usable", async () => {
    // A redemption cut short after using the code up is finished by its retry (the used marker
    // names the grant): so a second presentation that passes every check, while the first is
    // still writing, creates the same grant, with a create-if-new write only one can win.
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const input = redemptionInput(new URLSearchParams(codeForm(signedIn)));
    const ttl = { accessTokenTtlMs: MINUTE, refreshTokenTtlMs: MINUTE, keys: { refreshToken: new Uint8Array(32) } };
    const first = await redeemCode(rt.store, input, rt.now(), { grantTypeOptional: false, resumable: true });
    const second = await redeemCode(rt.store, input, rt.now(), { grantTypeOptional: false, resumable: true });
    expect(second.grantId).toBe(first.grantId);
    const grant = {
      id: first.grantId,
      clientId: first.record.clientId,
      me: first.record.me,
      scopes: first.record.scopes,
    };
    const issued = await createGrant(rt.store, grant, rt.now(), ttl);
    expect(await createGrant(rt.store, grant, rt.now(), ttl).catch((e: unknown) => e)).toBeInstanceOf(CodeAlreadyUsed);
    expect(await introspection(rt, issued.accessToken)).toEqual({ active: false });
    // Once the grant exists, a third presentation is a replay like any other.
    expect(
      await redeemCode(rt.store, input, rt.now(), { grantTypeOptional: false, resumable: true }).catch(
        (e: unknown) => e,
      ),
    ).toBeInstanceOf(CodeAlreadyUsed);
  });

  it("a presentation that fails a check is never finished by a later one, nor one at POST /auth by /token", async () => {
    const rt = await fastRuntime();
    const wrong = await signInForCode(rt);
    const input = (fields: Record<string, string>) => redemptionInput(new URLSearchParams(fields));
    expect(
      await redeemCode(rt.store, input(codeForm(wrong, { code_verifier: pkcePair().verifier })), rt.now(), {
        grantTypeOptional: false,
        resumable: true,
      }).catch((e: unknown) => e),
    ).toMatchObject({ error: "invalid_grant" });
    expect(
      await redeemCode(rt.store, input(codeForm(wrong)), rt.now(), { grantTypeOptional: false, resumable: true }).catch(
        (e: unknown) => e,
      ),
    ).toBeInstanceOf(CodeAlreadyUsed);
    const profile = await signInForCode(rt);
    expect((await postAuth(rt, codeForm(profile))).status).toBe(200);
    expect(
      await redeemCode(rt.store, input(codeForm(profile)), rt.now(), {
        grantTypeOptional: false,
        resumable: true,
      }).catch((e: unknown) => e),
    ).toBeInstanceOf(CodeAlreadyUsed);
  });

  it("approving the same signed request again never issues a second code, and never re-issues a redeemed one", async () => {
    const rt = await fastRuntime();
    const { verifier, challenge } = pkcePair();
    const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, scope: "create" }));
    const first = redirectParams(await approve(rt, request, { scopes: ["create"] })).get("code")!;
    // A double-click: the same answer again, not a second code.
    expect(redirectParams(await approve(rt, request, { scopes: ["create"] })).get("code")).toBe(first);
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);
    const tokens = (await (await postToken(rt, codeForm({ code: first, verifier }))).json()) as {
      access_token: string;
    };
    // Once redeemed, the request is answered with a page: the code does not come back to be replayed.
    const again = await approve(rt, request, { scopes: ["create"] });
    expect(again.status).toBe(400);
    expect(again.headers.get("location")).toBeNull();
    expect(await introspection(rt, tokens.access_token)).toMatchObject({ active: true });
  });
});

describe("codes: expiry", () => {
  it("a code is refused ten minutes after it was issued (and accepted a moment before: the control)", async () => {
    const rt = await fastRuntime();
    const late = await signInForCode(rt);
    const inTime = await signInForCode(rt);
    rt.clock.advance(10 * MINUTE - 1000);
    expect((await postToken(rt, codeForm(inTime))).status).toBe(200);
    rt.clock.advance(1000);
    await expectOAuthError(await postToken(rt, codeForm(late)), 400, "invalid_grant");
  });

  it("the stored expiry is what counts: a record kept past its time by a late sweep is still refused", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    rt.clock.advance(24 * 60 * MINUTE);
    expect(await rt.store.get<CodeRecord>(RECORDS.code.key(signedIn.code))).not.toBeNull();
    await expectOAuthError(await postAuth(rt, codeForm(signedIn)), 400, "invalid_grant");
  });
});

describe("codes: redemption by someone else", () => {
  it.each([
    ["another client_id", { client_id: "https://evil.example/" }],
    ["the client_id with another scheme", { client_id: "http://app.example.com/" }],
    ["another redirect_uri", { redirect_uri: "https://evil.example/callback" }],
    ["the redirect_uri with an added query", { redirect_uri: `${REDIRECT_URI}?x=1` }],
    ["the redirect_uri with a trailing slash", { redirect_uri: `${REDIRECT_URI}/` }],
    ["another verifier", { code_verifier: pkcePair().verifier }],
  ])("%s is refused, and the code is spent: the rightful client cannot use it after that", async (_name, overrides) => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    await expectOAuthError(await postToken(rt, codeForm(signedIn, overrides)), 400, "invalid_grant");
    await expectBurnt(rt, signedIn);
  });

  it("a well-formed code that was never issued is refused", async () => {
    const rt = await fastRuntime();
    await expectOAuthError(
      await postToken(rt, codeForm({ code: `ic_${"A".repeat(43)}`, verifier: pkcePair().verifier })),
      400,
      "invalid_grant",
    );
  });

  it("the store keeps only the code's hash: its record key and content give no usable code", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const [key] = await rt.store.list(RECORDS.code.prefix);
    const record = await rt.store.get<CodeRecord>(key!);
    expect(JSON.stringify({ key, record })).not.toContain(signedIn.code.slice(3));
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { code: `ic_${key!.slice(RECORDS.code.prefix.length)}` })),
      400,
      "invalid_grant",
    );
  });
});

describe("codes: PKCE downgrade", () => {
  it.each([
    ["without code_challenge", { code_challenge: null }],
    ["with code_challenge_method=plain", { code_challenge_method: "plain" }],
    ["with code_challenge_method in lower case (s256)", { code_challenge_method: "s256" }],
    ["without code_challenge_method", { code_challenge_method: null }],
    ["with a challenge too short to be a SHA-256", { code_challenge: "abc" }],
  ])("a request %s gets an error back, never the sign-in page", async (_name, overrides) => {
    const response = await authorize(
      await approvedBefore(await fastRuntime({ discover: publishingClient })),
      authorizationParams(overrides),
    );
    expect(response.status).toBe(302);
    expect(redirectParams(response).get("error")).toBe("invalid_request");
  });

  it("redemption without a verifier is refused, and spends the code", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    await expectOAuthError(await postToken(rt, codeForm(signedIn, { code_verifier: null })), 400, "invalid_request");
    await expectBurnt(rt, signedIn);
  });

  it("the challenge itself presented as the verifier (the plain method) is refused", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    await expectOAuthError(
      await postToken(
        rt,
        codeForm(signedIn, { code_verifier: s256(signedIn.verifier), code_challenge_method: "plain" }),
      ),
      400,
      "invalid_grant",
    );
    await expectBurnt(rt, signedIn);
  });

  it("a verifier outside the RFC 7636 alphabet or length is refused before the code is looked up", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    for (const verifier of ["short", `${signedIn.verifier}\u0000`, `${signedIn.verifier} `, "a".repeat(129)]) {
      await expectOAuthError(
        await postToken(rt, codeForm(signedIn, { code_verifier: verifier })),
        400,
        "invalid_request",
      );
    }
    // Those did not spend the code: they never reached it.
    expect((await postToken(rt, codeForm(signedIn))).status).toBe(200);
  });

  it("a wrong verifier first, then the right one: the code is already spent (no guessing the verifier)", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    await expectOAuthError(
      await postToken(rt, codeForm(signedIn, { code_verifier: pkcePair().verifier })),
      400,
      "invalid_grant",
    );
    await expectBurnt(rt, signedIn);
  });

  it("every stored code records S256, whatever the request said", async () => {
    const rt = await fastRuntime();
    const { challenge } = pkcePair();
    const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge }));
    const code = redirectParams(await approve(rt, request)).get("code")!;
    expect(await rt.store.get<CodeRecord>(RECORDS.code.key(code))).toMatchObject({
      codeChallenge: challenge,
      codeChallengeMethod: "S256",
    });
  });
});

// Attack catalogue: token confusion. Each kind of secret this server hands out (authorization
// code, access token, refresh token, session cookie, signed authorization request, WebAuthn
// ticket) and the resource servers' INTROSPECTION_TOKEN, presented where another is expected;
// JWTs of one kind re-signed to look like another, one check at a time; forged and truncated
// tokens; and tokens of a revoked grant.
import { describe, expect, it } from "vitest";
import { tokenEndpoint } from "../../../netlify/lib/endpoints/token.ts";
import type { AuthorizationRequest } from "../../../netlify/lib/pages/sign-in-fragment.ts";
import { REQUEST_OBJECT_TYPE } from "../../../netlify/lib/pages/request-object-shape.ts";
import { deriveKey } from "../../../netlify/lib/crypto/secrets.ts";
import { SESSION_TYPE } from "../../../netlify/lib/owner/sessions.ts";
import { signTyped, type JwtKind } from "../../../netlify/lib/crypto/typed-jwt.ts";
import { TICKET_TYPE } from "../../../netlify/lib/owner/webauthn.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { consoleGet, consolePost, consoleSignIn, passkeysPost } from "../../helpers/console.ts";
import {
  approve,
  introspect,
  postAuth,
  postToken,
  revoke,
  signedRequest,
  signInForCode,
  userinfo,
} from "../../helpers/endpoints.ts";
import {
  BASE,
  CLIENT_ID,
  codeForm,
  decodePayload,
  pkcePair,
  REDIRECT_URI,
  refreshForm,
  type Tokens,
} from "../../helpers/requests.ts";
import { expectOAuthError, introspection, tokensFor } from "../../helpers/tokens.ts";
import { TEST_PASSWORD, TEST_SECRET } from "../../helpers/env.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";
import { RECORDS } from "../../../netlify/lib/platform/records.ts";

const ISSUER = "https://auth.jane.example/";
const INTROSPECTION_TOKEN = "resource-server-credential-0123456789abcdef";
const COOKIE = "__Secure-indieauth_session";
const KEYS = {
  session: deriveKey(TEST_SECRET, "owner-session"),
  request: deriveKey(TEST_SECRET, "authorization-request"),
  webauthn: deriveKey(TEST_SECRET, "webauthn-ticket"),
};
const KINDS = {
  session: { key: KEYS.session, issuer: ISSUER, typ: SESSION_TYPE, audience: `${ISSUER}session` },
  request: { key: KEYS.request, issuer: ISSUER, typ: REQUEST_OBJECT_TYPE, audience: `${ISSUER}auth/approve` },
  webauthn: { key: KEYS.webauthn, issuer: ISSUER, typ: TICKET_TYPE, audience: `${ISSUER}webauthn` },
} satisfies Record<string, JwtKind>;

/** One of every secret, all genuine and live. */
interface Secrets {
  rt: TestRuntime;
  code: string;
  tokens: Tokens;
  /** The session JWT (the cookie's value). */
  session: string;
  sid: string;
  request: string;
  ticket: string;
}

async function everySecret(): Promise<Secrets> {
  const rt = await fastRuntime({ env: { INTROSPECTION_TOKEN } });
  const tokens = await tokensFor(rt);
  const { code } = await signInForCode(rt);
  const cookie = await consoleSignIn(rt);
  const session = cookie.slice(`${COOKIE}=`.length);
  const sid = (decodePayload(session) as { sid: string }).sid;
  const request = await signedRequest(rt);
  const options = await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie });
  expect(options.status).toBe(200);
  const { ticket } = (await options.json()) as { ticket: string };
  return { rt, code, tokens, session, sid, request, ticket };
}

async function isSession(rt: TestRuntime, jwt: string): Promise<boolean> {
  const status = (await consoleGet(rt, { cookie: `${COOKIE}=${jwt}` })).status;
  expect([200, 401]).toContain(status);
  return status === 200;
}

/** The approve step with this value as its signed request; false when it is refused as one. */
async function isRequestObject(rt: TestRuntime, jwt: string): Promise<boolean> {
  const response = await approve(rt, jwt);
  expect([302, 303, 400]).toContain(response.status);
  return response.status !== 400;
}

async function isAccessToken(rt: TestRuntime, token: string): Promise<boolean> {
  const active = ((await introspection(rt, token)) as { active: boolean }).active;
  const status = (await userinfo(rt, token)).status;
  expect(status === 200).toBe(active);
  return active;
}

async function refreshes(rt: TestRuntime, token: string): Promise<boolean> {
  const response = await postToken(rt, refreshForm(token));
  if (response.status === 200) return true;
  await expectOAuthError(response, 400, "invalid_grant");
  return false;
}

async function redeemsAsCode(rt: TestRuntime, value: string): Promise<boolean> {
  const form = codeForm({ code: value, verifier: pkcePair().verifier });
  const [token, auth] = await Promise.all([postToken(rt, form), postAuth(rt, form)]);
  for (const response of [token, auth])
    if (response.status !== 200) await expectOAuthError(response, 400, "invalid_grant");
  return token.status === 200 || auth.status === 200;
}

describe("token confusion: each kind of secret presented where another is expected", () => {
  it("the controls: every secret works where it belongs", async () => {
    const s = await everySecret();
    expect(await isAccessToken(s.rt, s.tokens.access_token)).toBe(true);
    expect(await isSession(s.rt, s.session)).toBe(true);
    expect(await isRequestObject(s.rt, s.request)).toBe(true);
    expect(await refreshes(s.rt, s.tokens.refresh_token)).toBe(true);
  });

  it("no other secret is an access token (introspection, userinfo)", async () => {
    const s = await everySecret();
    for (const value of [s.code, s.tokens.refresh_token, s.session, s.request, s.ticket]) {
      expect(await isAccessToken(s.rt, value)).toBe(false);
    }
    // The resource servers' credential is no token: userinfo refuses it, and checked by itself it is inactive.
    expect((await userinfo(s.rt, INTROSPECTION_TOKEN)).status).toBe(401);
    expect(await (await introspect(s.rt, INTROSPECTION_TOKEN, { token: INTROSPECTION_TOKEN })).json()).toEqual({
      active: false,
    });
  });

  it("no other secret is a refresh token", async () => {
    const s = await everySecret();
    for (const value of [s.code, s.tokens.access_token, s.session, s.request, s.ticket, INTROSPECTION_TOKEN]) {
      expect(await refreshes(s.rt, value)).toBe(false);
    }
    // Presenting the wrong kind revoked nothing.
    expect(await isAccessToken(s.rt, s.tokens.access_token)).toBe(true);
  });

  it("no other secret is an authorization code (at /token or POST /auth)", async () => {
    const s = await everySecret();
    for (const value of [
      s.tokens.access_token,
      s.tokens.refresh_token,
      s.session,
      s.request,
      s.ticket,
      INTROSPECTION_TOKEN,
    ]) {
      expect(await redeemsAsCode(s.rt, value)).toBe(false);
    }
  });

  it("no other secret is a session cookie", async () => {
    const s = await everySecret();
    for (const value of [
      s.code,
      s.tokens.access_token,
      s.tokens.refresh_token,
      s.request,
      s.ticket,
      INTROSPECTION_TOKEN,
    ]) {
      expect(await isSession(s.rt, value)).toBe(false);
    }
  });

  it("no other secret is a signed authorization request at the approve step", async () => {
    const s = await everySecret();
    for (const value of [
      s.code,
      s.tokens.access_token,
      s.tokens.refresh_token,
      s.session,
      s.ticket,
      INTROSPECTION_TOKEN,
    ]) {
      expect(await isRequestObject(s.rt, value)).toBe(false);
    }
  });

  it("no other JWT is a WebAuthn ticket (a session or a signed request cannot finish a registration)", async () => {
    const s = await everySecret();
    const cookie = `${COOKIE}=${s.session}`;
    for (const ticket of [s.session, s.request]) {
      const response = await passkeysPost(
        s.rt,
        "/registration",
        { ticket, response: JSON.stringify({ id: "x", response: {} }) },
        { cookie },
      );
      expect(response.status).toBe(400);
    }
    expect(await s.rt.store.list(RECORDS.usedChallenge.prefix)).toEqual([]);
  });

  it("an access token is not the INTROSPECTION_TOKEN: it may check itself, never another token", async () => {
    const s = await everySecret();
    const other = await tokensFor(s.rt);
    const response = await introspect(s.rt, s.tokens.access_token, { token: other.access_token });
    await expectOAuthError(response, 401, "invalid_token");
    // (In the URL, another token is refused before anything is checked: tokens-in-urls.test.ts.)
    const legacy = await tokenEndpoint(
      new Request(`${BASE}/token?token=${other.access_token}`, {
        headers: { Authorization: `Bearer ${s.tokens.access_token}` },
      }),
      s.rt,
    );
    await expectOAuthError(legacy, 400, "invalid_request");
  });

  it("the INTROSPECTION_TOKEN with one character changed is an ordinary (unknown) Bearer token", async () => {
    const s = await everySecret();
    const near = `${INTROSPECTION_TOKEN.slice(0, -1)}X`;
    await expectOAuthError(await introspect(s.rt, near, { token: s.tokens.access_token }), 401, "invalid_token");
  });
});

describe("token confusion: a JWT re-signed to pass for another kind (each check on its own)", () => {
  async function sessionJwt(s: Secrets, kind: JwtKind, claims: Record<string, unknown> = {}): Promise<string> {
    return signTyped({ sid: s.sid, ...claims }, kind, s.rt.now(), s.rt.now() + 60 * 60 * 1000);
  }

  it("the control: the live session's id, signed as a session, is a session", async () => {
    const s = await everySecret();
    expect(await isSession(s.rt, await sessionJwt(s, KINDS.session))).toBe(true);
  });

  it.each([
    ["signed with the request-object key", { ...KINDS.session, key: KEYS.request }],
    ["signed with the WebAuthn-ticket key", { ...KINDS.session, key: KEYS.webauthn }],
    [
      "signed with SECRET itself instead of its derived key",
      { ...KINDS.session, key: new TextEncoder().encode(TEST_SECRET) },
    ],
    ["typed as a signed request", { ...KINDS.session, typ: REQUEST_OBJECT_TYPE }],
    ["typed as a WebAuthn ticket", { ...KINDS.session, typ: TICKET_TYPE }],
    ["addressed to the approve step", { ...KINDS.session, audience: `${ISSUER}auth/approve` }],
    ["issued by another server", { ...KINDS.session, issuer: "https://evil.example/" }],
  ])("a live session's id %s is not a session", async (_name, kind) => {
    const s = await everySecret();
    expect(await isSession(s.rt, await sessionJwt(s, kind))).toBe(false);
  });

  it("a live session's id in an unsigned JWT (alg none) is not a session", async () => {
    const s = await everySecret();
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const t = Math.floor(s.rt.now() / 1000);
    const unsigned = `${part({ alg: "none", typ: SESSION_TYPE })}.${part({ sid: s.sid, iss: ISSUER, aud: `${ISSUER}session`, iat: t, exp: t + 3600 })}.`;
    expect(await isSession(s.rt, unsigned)).toBe(false);
  });

  it("a live session's id in a JWT that has expired is not a session", async () => {
    const s = await everySecret();
    const expired = await signTyped(
      { sid: s.sid },
      KINDS.session,
      s.rt.now() - 2 * 60 * 60 * 1000,
      s.rt.now() - 60 * 1000,
    );
    expect(await isSession(s.rt, expired)).toBe(false);
  });

  const request: AuthorizationRequest = {
    clientId: CLIENT_ID,
    redirectUri: REDIRECT_URI,
    state: "s",
    codeChallenge: pkcePair().challenge,
    scopes: ["create"],
    client: {},
  };

  it("the control: a request signed as a request is accepted", async () => {
    const rt = await fastRuntime();
    expect(
      await isRequestObject(rt, await signTyped({ ...request, rid: "r" }, KINDS.request, rt.now(), rt.now() + 60_000)),
    ).toBe(true);
  });

  it.each([
    ["signed with the session key", { ...KINDS.request, key: KEYS.session }],
    ["signed with SECRET itself", { ...KINDS.request, key: new TextEncoder().encode(TEST_SECRET) }],
    ["typed as a session", { ...KINDS.request, typ: SESSION_TYPE }],
    ["addressed to the session audience", { ...KINDS.request, audience: `${ISSUER}session` }],
    ["issued by another server", { ...KINDS.request, issuer: "https://evil.example/" }],
  ])("an authorization request %s is refused at the approve step, with no code", async (_name, kind) => {
    const rt = await fastRuntime();
    expect(
      await isRequestObject(rt, await signTyped({ ...request, rid: "r" }, kind, rt.now(), rt.now() + 60_000)),
    ).toBe(false);
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });
});

/** The token with the case of its last letter flipped (a base64url secret may end in a digit). */
function flipLastLetter(token: string): string {
  const i = token.search(/[A-Za-z][^A-Za-z]*$/);
  const c = token[i]!;
  return `${token.slice(0, i)}${c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()}${token.slice(i + 1)}`;
}

describe("token confusion: forged and truncated tokens", () => {
  it.each([
    ["the right grant, a made-up secret", (t: string) => `${t.slice(0, 27)}${"A".repeat(43)}`],
    ["the last character dropped", (t: string) => t.slice(0, -1)],
    ["a character added", (t: string) => `${t}A`],
    ["one letter's case flipped", flipLastLetter],
    ["the secret alone, without its grant", (t: string) => t.slice(27)],
    ["the prefix changed to the other kind", (t: string) => `irt_${t.slice(4)}`],
  ])("an access token with %s is inactive", async (_name, forge) => {
    const rt = await fastRuntime();
    const { access_token } = await tokensFor(rt);
    const forged = forge(access_token);
    expect(forged).not.toBe(access_token);
    expect(await isAccessToken(rt, forged)).toBe(false);
    expect(await isAccessToken(rt, access_token)).toBe(true);
  });

  it("one grant's id with another grant's secret is inactive", async () => {
    const rt = await fastRuntime();
    const a = await tokensFor(rt);
    const b = await tokensFor(rt);
    expect(await isAccessToken(rt, `${a.access_token.slice(0, 27)}${b.access_token.slice(27)}`)).toBe(false);
    expect(await refreshes(rt, `${a.refresh_token.slice(0, 27)}${b.refresh_token.slice(27)}`)).toBe(false);
  });

  it("a forged refresh token naming a grant neither refreshes nor revokes it (grant ids are not secret)", async () => {
    const rt = await fastRuntime();
    const tokens = await tokensFor(rt);
    expect(await refreshes(rt, `${tokens.refresh_token.slice(0, 27)}${"B".repeat(43)}`)).toBe(false);
    expect((await revoke(rt, { token: `${tokens.access_token.slice(0, 27)}${"B".repeat(43)}` })).status).toBe(200);
    expect(await isAccessToken(rt, tokens.access_token)).toBe(true);
    expect(await refreshes(rt, tokens.refresh_token)).toBe(true);
  });

  it("a truncated signed request or session cookie is refused", async () => {
    const s = await everySecret();
    expect(await isRequestObject(s.rt, s.request.slice(0, -1))).toBe(false);
    expect(await isRequestObject(s.rt, s.request.slice(0, s.request.lastIndexOf(".") + 1))).toBe(false);
    expect(await isSession(s.rt, s.session.slice(0, -1))).toBe(false);
  });
});

describe("token confusion: tokens of a revoked grant", () => {
  async function expectDead(rt: TestRuntime, tokens: Tokens): Promise<void> {
    expect(await isAccessToken(rt, tokens.access_token)).toBe(false);
    expect(await refreshes(rt, tokens.refresh_token)).toBe(false);
    // Presenting the refresh token again does not bring the grant back.
    expect(await isAccessToken(rt, tokens.access_token)).toBe(false);
  }

  it("revoked at /revoke with its access token", async () => {
    const rt = await fastRuntime();
    const tokens = await tokensFor(rt);
    expect((await revoke(rt, { token: tokens.access_token })).status).toBe(200);
    await expectDead(rt, tokens);
  });

  it("revoked at /revoke with its refresh token", async () => {
    const rt = await fastRuntime();
    const tokens = await tokensFor(rt);
    expect((await revoke(rt, { token: tokens.refresh_token, token_type_hint: "access_token" })).status).toBe(200);
    await expectDead(rt, tokens);
  });

  it("revoked from the owner's console", async () => {
    const rt = await fastRuntime();
    const tokens = await tokensFor(rt);
    const cookie = await consoleSignIn(rt);
    expect((await consolePost(rt, "/revoke", { app: "all" }, { cookie })).status).toBe(200);
    await expectDead(rt, tokens);
  });

  it("revoked because a rotated-out refresh token came back: the newest pair dies too", async () => {
    const rt = await fastRuntime();
    const first = await tokensFor(rt);
    const response = await postToken(rt, refreshForm(first.refresh_token));
    expect(response.status).toBe(200);
    const second = (await response.json()) as Tokens;
    expect(await refreshes(rt, first.refresh_token)).toBe(false);
    await expectDead(rt, second);
  });

  it("revoked by a replayed code: the first redemption's tokens die", async () => {
    const rt = await fastRuntime();
    const signedIn = await signInForCode(rt);
    const response = await postToken(rt, codeForm(signedIn));
    const tokens = (await response.json()) as Tokens;
    await postToken(rt, codeForm(signedIn));
    await expectDead(rt, tokens);
  });

  it("a new authorization of the same client does not revive the revoked grant's tokens", async () => {
    const rt = await fastRuntime();
    const tokens = await tokensFor(rt);
    await revoke(rt, { token: tokens.access_token });
    const fresh = await tokensFor(rt);
    expect(await isAccessToken(rt, fresh.access_token)).toBe(true);
    await expectDead(rt, tokens);
  });
});

// Signing in and calling the token endpoints in-process, for the token integration tests.
import { expect } from "vitest";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { revocationEndpoint } from "../../netlify/lib/endpoints/revocation.ts";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { introspectionEndpoint } from "../../netlify/lib/endpoints/token-verification.ts";
import { userinfoEndpoint } from "../../netlify/lib/endpoints/userinfo.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import { approve, authorizationParams, BASE, CLIENT_ID, pkcePair, REDIRECT_URI, redirectParams, signedRequest } from "./oauth.ts";

export interface SignedIn {
  code: string;
  verifier: string;
}

/** A real sign-in through GET /auth and the approve step; the scopes are all ticked. */
export async function signInForCode(rt: Runtime, scope: string | null = "profile email create"): Promise<SignedIn> {
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, scope }));
  const response = await approve(rt, request, { scopes: scope ? scope.split(" ") : [] });
  return { code: redirectParams(response).get("code")!, verifier };
}

export function codeForm(signedIn: SignedIn, overrides: Record<string, string | null> = {}): Record<string, string> {
  const fields: Record<string, string | null> = {
    grant_type: "authorization_code",
    code: signedIn.code,
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    code_verifier: signedIn.verifier,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== null));
}

export function post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}${path}`, { method: "POST", body: new URLSearchParams(fields), headers });
}

export const postToken = (rt: Runtime, fields: Record<string, string>, headers: Record<string, string> = {}) => tokenEndpoint(post("/token", fields, headers), rt);
export const postAuth = (rt: Runtime, fields: Record<string, string>) => authorizationEndpoint(post("/auth", fields), rt);
export const revoke = (rt: Runtime, fields: Record<string, string>) => revocationEndpoint(post("/revoke", fields), rt);

export function introspect(rt: Runtime, bearer: string | null, fields: Record<string, string> = {}, query = ""): Promise<Response> {
  const headers: Record<string, string> = bearer === null ? {} : { Authorization: `Bearer ${bearer}` };
  return introspectionEndpoint(new Request(`${BASE}/introspect${query}`, { method: "POST", body: new URLSearchParams(fields), headers }), rt);
}

export async function introspection(rt: Runtime, token: string): Promise<Record<string, unknown>> {
  const response = await introspect(rt, token);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

export function userinfo(rt: Runtime, token: string | null): Promise<Response> {
  return userinfoEndpoint(new Request(`${BASE}/userinfo`, { headers: token === null ? {} : { Authorization: `Bearer ${token}` } }), rt);
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
  [key: string]: unknown;
}

/** Signs in and redeems the code at /token. */
export async function tokensFor(rt: Runtime, scope = "profile email create"): Promise<Tokens> {
  const response = await postToken(rt, codeForm(await signInForCode(rt, scope)));
  expect(response.status).toBe(200);
  return (await response.json()) as Tokens;
}

export async function expectOAuthError(response: Response, status: number, error: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe("string");
}

export function refreshForm(refreshToken: string, overrides: Record<string, string> = {}): Record<string, string> {
  return { grant_type: "refresh_token", refresh_token: refreshToken, client_id: CLIENT_ID, ...overrides };
}

// The resource-server API's tests share these: the API on a test runtime's store and clock (a
// function on the server's own site), requests to a Micropub endpoint, real sign-ins, and the
// check of a refusal as RFC 6750 has it.
import { expect } from "vitest";
import { resourceServer, type ActiveToken, type ResourceServer } from "../../netlify/lib/resource/index.ts";
import { approve, postToken, signedRequest } from "./endpoints.ts";
import { authorizationParams, codeForm, pkcePair, redirectParams } from "./requests.ts";
import type { TestRuntime } from "./runtime.ts";

export const MINUTE = 60_000;
export const SITE = "https://jane.example";
export const MICROPUB = `${SITE}/micropub`;
export const CREDENTIAL = "c".repeat(40);
export const UNKNOWN = `iat_${"A".repeat(22)}.${"B".repeat(43)}`;

/** The API on the runtime's own store and clock: a function on the server's site. */
export function sameSite(rt: TestRuntime, env: Record<string, string> = {}): ResourceServer {
  return resourceServer({ env, store: rt.store, now: () => rt.clock.now });
}

export const get = (headers: Record<string, string> = {}, url = MICROPUB) => new Request(url, { headers });
export const bearer = (token: string, url = MICROPUB) => get({ Authorization: `Bearer ${token}` }, url);
export const form = (fields: Record<string, string>, url = MICROPUB, headers: Record<string, string> = {}) =>
  new Request(url, { method: "POST", body: new URLSearchParams(fields), headers });

/** A refusal with this status and error code; `null`: the bare challenge of a request without
 * a token, whose body is empty (RFC 6750 3.1: no error information). */
export async function expectRefusal(
  answer: ActiveToken | Response,
  status: number,
  error: string | null,
): Promise<Response> {
  expect(answer).toBeInstanceOf(Response);
  const response = answer as Response;
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await response.clone().json()) as { error?: string };
  if (error === null) expect(body).toEqual({});
  else expect(body.error).toBe(error);
  return response;
}

/** A real sign-in for a resource (RFC 8707: `resource` at /auth, kept at /token). */
export async function tokensForResource(
  rt: TestRuntime,
  resource: string,
  scopes = ["profile", "create"],
): Promise<{ access_token: string }> {
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, resource }));
  const code = redirectParams(await approve(rt, request, { scopes })).get("code")!;
  const response = await postToken(rt, codeForm({ code, verifier }));
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string };
}

// The token checks that assert with vitest's expect. The requests they send and the endpoint
// calls behind them live in requests.ts and endpoints.ts (shared with the bench).
import { expect } from "vitest";
import { introspect, postToken, signInForCode } from "./endpoints.ts";
import { codeForm, type Tokens } from "./requests.ts";
import type { FullRuntime } from "./runtime.ts";

export async function introspection(rt: FullRuntime, token: string): Promise<Record<string, unknown>> {
  const response = await introspect(rt, token);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Signs in and redeems the code at /token. */
export async function tokensFor(rt: FullRuntime, scope = "profile email create"): Promise<Tokens> {
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

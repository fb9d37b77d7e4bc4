// Building authorization requests and walking them through GET /auth and the approve step.
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import type { Runtime } from "../../netlify/lib/platform/runtime.ts";
import { TEST_PASSWORD } from "./env.ts";

export const BASE = "https://auth.jane.example";
export const CLIENT_ID = "https://app.example.com/";
export const REDIRECT_URI = "https://app.example.com/callback";

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizationParams(overrides: Record<string, string | null> = {}): URLSearchParams {
  const params: Record<string, string | null> = {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "state-123",
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "profile create",
    me: "https://jane.example/",
    ...overrides,
  };
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== null) search.append(name, value);
  return search;
}

export function authorize(rt: Runtime, params: URLSearchParams | string, headers: Record<string, string> = {}): Promise<Response> {
  return authorizationEndpoint(new Request(`${BASE}/auth?${params.toString()}`, { headers }), rt);
}

/** GET /auth, expecting the hand-over to the sign-in page; returns the signed request. */
export async function signedRequest(rt: Runtime, params = authorizationParams()): Promise<string> {
  const response = await authorize(rt, params);
  expect(response.status).toBe(303);
  const location = response.headers.get("location") ?? "";
  expect(location).toMatch(/^\/indieauth\/sign-in\/#request=/);
  return new URLSearchParams(location.split("#")[1]).get("request")!;
}

export function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
}

export interface ApproveOptions {
  password?: string;
  decision?: string;
  scopes?: string[];
  ip?: string;
  headers?: Record<string, string>;
  /** Ticks "Keep me signed in on this device". */
  remember?: boolean;
  /** Extra form fields (a passkey's answer, say). */
  fields?: Record<string, string>;
}

export function approve(rt: Runtime, request: string, options: ApproveOptions = {}): Promise<Response> {
  const body = new URLSearchParams({ request, decision: options.decision ?? "approve", password: options.password ?? TEST_PASSWORD });
  for (const scope of options.scopes ?? []) body.append("scope", scope);
  if (options.remember) body.set("remember", "on");
  for (const [name, value] of Object.entries(options.fields ?? {})) body.set(name, value);
  return approveEndpoint(
    new Request(`${BASE}/auth/approve`, {
      method: "POST",
      body,
      headers: { Origin: BASE, "Sec-Fetch-Site": "same-origin", ...options.headers },
    }),
    rt,
    { ip: options.ip ?? "203.0.113.7" },
  );
}

export function redirectParams(response: Response): URLSearchParams {
  return new URL(response.headers.get("location")!).searchParams;
}

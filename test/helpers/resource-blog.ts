// What resource-blog.e2e.test.ts does with a served blog: the worked example's functions read
// from docs/resource-api.md, and a real sign-in through the blog's IndieAuth endpoints.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { repo } from "./blog.ts";
import { TEST_PASSWORD } from "./env.ts";

export const CLIENT_ID = "http://127.0.0.1:3000/";
const REDIRECT_URI = "http://127.0.0.1:3000/callback";

/** The worked example's code blocks that start with `// netlify/functions/<file>`, by file name. */
export function exampleFunctions(): Map<string, string> {
  const doc = readFileSync(join(repo, "docs", "resource-api.md"), "utf8");
  const files = new Map<string, string>();
  for (const [, code] of doc.matchAll(/^```ts\n(\/\/ netlify\/functions\/[^\n]+\n[\s\S]*?)^```$/gm)) {
    const name = /^\/\/ netlify\/functions\/(\S+)/.exec(code!)![1]!;
    files.set(name, code!);
  }
  return files;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

/** A real sign-in at `base`: GET /auth (for a resource, as MCP hosts ask, RFC 8707), the sign-in
 * page's POST /auth/approve with the password and the scopes ticked, and the code redeemed at
 * POST /token with its PKCE verifier. */
export async function signInAt(base: string, scope: string, resource?: string): Promise<Tokens> {
  const verifier = randomBytes(32).toString("base64url");
  const params = new URLSearchParams({
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    state: "resource-test",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope,
    ...(resource ? { resource } : {}),
  });
  const start = await fetch(`${base}/auth?${params}`, { redirect: "manual" });
  expect(start.status).toBe(303);
  const request = new URLSearchParams(new URL(start.headers.get("location")!, base).hash.slice(1)).get("request")!;
  const approval = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
  for (const s of scope.split(" ")) approval.append("scope", s);
  const approved = await fetch(`${base}/auth/approve`, {
    method: "POST",
    body: approval,
    redirect: "manual",
    headers: { Origin: base, "Sec-Fetch-Site": "same-origin" },
  });
  expect(approved.status).toBe(302);
  const code = new URL(approved.headers.get("location")!).searchParams.get("code")!;
  const redeemed = await fetch(`${base}/token`, {
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
  expect(redeemed.status).toBe(200);
  return (await redeemed.json()) as Tokens;
}

import { SELF_TEST_PAGE } from "../../netlify/lib/pages/paths.ts";

// The self-test as a client: PKCE values and state for a sign-in in which this deployment is
// its own app (client_id = its base URL, redirect to its self-test page). Kept in sessionStorage
// between the home page and the callback page, as any browser-based client would.

export const SELF_TEST_KEY = "indieauth-self-test";

export interface PendingSignIn {
  state: string;
  verifier: string;
  base: string;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export function randomValue(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export async function challengeFor(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

export function selfTestClient(base: string): { clientId: string; redirectUri: string } {
  return { clientId: `${base}/`, redirectUri: `${base}${SELF_TEST_PAGE}` };
}

// Same-site mode: the blog's function reads the token's grant from the server's own Blobs store,
// with exactly the rules (and usage record) of POST /introspect: protocol/verification.ts.
import { checkAccessToken, introspectionBody } from "../protocol/verification.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { tokenFromIntrospection } from "./introspection-answer.ts";
import type { TokenVerification } from "./types.ts";

/** Checks a token with one round trip: its grant, and the owner's revocations beside it. */
export async function verifySameSite(store: KeyValueStore, token: string, now: number): Promise<TokenVerification> {
  const check = await checkAccessToken(store, token, now);
  if (!check.active) return { active: false, reason: check.reason };
  return tokenFromIntrospection(introspectionBody(check.grant))!;
}

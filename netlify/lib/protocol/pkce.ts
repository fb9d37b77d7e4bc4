// PKCE (RFC 7636), S256 only: "plain" would let a stolen code be redeemed by anyone.
import { createHash } from "node:crypto";
import { constantTimeEqual } from "../crypto/secrets.ts";

/** 43 to 128 characters of the unreserved set: the shape of both a verifier and an S256 challenge. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isPkceValue(value: string): boolean {
  return PKCE_VALUE.test(value);
}

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** Does the verifier hash to the stored challenge? Compared in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return isPkceValue(verifier) && constantTimeEqual(s256(verifier), challenge);
}

// What a signed sign-in request looks like from outside, without the key: the sign-in page reads
// it this way to tell a cut-short address at once, and the approve step to tell "cut short" from
// "changed". Neither trusts it: only the signature check (protocol/request-object.ts) does. No
// imports: the page's script bundles this module.

export const REQUEST_OBJECT_TYPE = "indieauth-request+jwt";

/** Why a sign-in request cannot be used: cut short or garbled; well formed but not as this
 * server signed it (changed, another server's, or signed with an earlier SECRET); or genuine
 * and more than 15 minutes old. */
export type RequestProblem = "incomplete" | "altered" | "expired";

/** An HS256 signature: 32 bytes, 43 base64url characters without padding. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function decodeJson(part: string): Record<string, unknown> | null {
  if (!BASE64URL.test(part) || part.length % 4 === 1) return null;
  try {
    const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** A request as it reads before any signature check. */
interface RequestShape {
  claims: Record<string, unknown>;
  /** When the payload says it expires (ms). */
  expiresAt: number;
}

/** The request's parts, or null when it is not whole: not three parts, a header of another
 * type, a payload that is not JSON or has no times, or a signature of the wrong length. */
export function readRequestShape(token: string): RequestShape | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [headerPart, payloadPart, signature] = parts as [string, string, string];
  const header = decodeJson(headerPart);
  if (!header || header.alg !== "HS256" || header.typ !== REQUEST_OBJECT_TYPE) return null;
  const claims = decodeJson(payloadPart);
  if (!claims || typeof claims.exp !== "number" || typeof claims.iat !== "number") return null;
  if (!SIGNATURE.test(signature)) return null;
  return { claims, expiresAt: claims.exp * 1000 };
}

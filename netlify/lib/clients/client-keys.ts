// How a Client ID Metadata Document says its client authenticates at the token endpoint (RFC 7591 2,
// CIMD draft 4.1): `none` (a public client), or `private_key_jwt` (RFC 7523 2.2) with its public keys
// in `jwks` or at `jwks_uri`. The singular `token_endpoint_auth_method` decides; a plural
// `token_endpoint_auth_methods_supported` (OpenID Connect RP Metadata Choices, which ChatGPT's
// document carries) only when it agrees. Shared secrets are refused: anyone can read a document.

import { ASSERTION_ALGORITHMS, type ClientKeySource, type KeyAuthentication } from "../core/client-shape.ts";
import { urlOf } from "../core/urls.ts";

const SHARED_SECRET_METHODS = new Set(["client_secret_post", "client_secret_basic", "client_secret_jwt"]);
/** JWK members that hold private or symmetric key material (RFC 7518 6.2.2, 6.3.2, 6.4.1). */
const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
/** More keys than any client rotates through; a longer set is refused, not truncated. */
const MAX_KEYS = 20;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function hasPrivateKeyMaterial(jwks: unknown): boolean {
  if (!isRecord(jwks) || !Array.isArray(jwks.keys)) return false;
  return jwks.keys.some((key) => isRecord(key) && PRIVATE_JWK_MEMBERS.some((member) => Object.hasOwn(key, member)));
}

/** The keys of a JWK Set that holds public keys only, or why not. */
export function publicKeySet(value: unknown): { keys: Record<string, unknown>[] } | string {
  if (!isRecord(value) || !Array.isArray(value.keys)) return "it is not a JWK Set (an object with a keys array)";
  const keys = value.keys.filter(isRecord);
  if (keys.length === 0) return "it holds no keys";
  if (keys.length > MAX_KEYS) return `it holds more than ${MAX_KEYS} keys`;
  if (hasPrivateKeyMaterial(value)) return "it publishes private key material";
  return { keys };
}

/** An https URL without credentials, or undefined. */
function httpsUrl(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const url = urlOf(raw);
  return url?.protocol === "https:" && url.username === "" && url.password === "" ? url.href : undefined;
}

function keySource(json: Record<string, unknown>): ClientKeySource | string {
  const hasSet = json.jwks !== undefined;
  const hasUri = json.jwks_uri !== undefined;
  if (hasSet && hasUri) return "it gives both jwks and jwks_uri; RFC 7591 allows only one";
  if (hasUri) {
    const uri = httpsUrl(json.jwks_uri);
    return uri === undefined ? "its jwks_uri is not an https URL" : { jwksUri: uri };
  }
  if (!hasSet) return "it declares private_key_jwt but publishes no keys (jwks or jwks_uri)";
  const set = publicKeySet(json.jwks);
  return typeof set === "string" ? `its jwks cannot be used: ${set}` : { jwks: set };
}

/** The plural member agrees with the singular one, or why not. */
function pluralRefusal(plural: unknown, method: string | undefined): string | null {
  if (plural === undefined) return null;
  if (method === undefined)
    return "it lists token_endpoint_auth_methods_supported but no token_endpoint_auth_method, so which method it uses here is ambiguous";
  if (!Array.isArray(plural) || !plural.every((entry) => typeof entry === "string"))
    return "its token_endpoint_auth_methods_supported is not a list of names";
  if (!plural.includes(method))
    return `its token_endpoint_auth_methods_supported does not include its own token_endpoint_auth_method ${method}`;
  return null;
}

/** What the document declares: `{}` (a public client), `{ authentication }`, or why it is refused. */
export function declaredAuthentication(
  json: Record<string, unknown>,
): { authentication?: KeyAuthentication } | { refused: string } {
  const method = json.token_endpoint_auth_method;
  if (method !== undefined && typeof method !== "string") {
    return {
      refused: "its token_endpoint_auth_method is not one name (a list is ambiguous: name the one method used here)",
    };
  }
  const plural = pluralRefusal(json.token_endpoint_auth_methods_supported, method);
  if (plural !== null) return { refused: plural };
  if (method === undefined || method === "none") return {};
  if (SHARED_SECRET_METHODS.has(method))
    return {
      refused: `its token_endpoint_auth_method ${method} needs a shared secret, which a public document cannot hold`,
    };
  if (method !== "private_key_jwt")
    return {
      refused: `its token_endpoint_auth_method ${method.slice(0, 60)} is not one this server accepts (none or private_key_jwt)`,
    };
  const keys = keySource(json);
  if (typeof keys === "string") return { refused: keys };
  const alg = json.token_endpoint_auth_signing_alg;
  if (alg !== undefined && !(ASSERTION_ALGORITHMS as readonly unknown[]).includes(alg)) {
    return { refused: `its token_endpoint_auth_signing_alg is not one of ${ASSERTION_ALGORITHMS.join(", ")}` };
  }
  return { authentication: { method: "private_key_jwt", keys, ...(typeof alg === "string" ? { alg } : {}) } };
}

/** A KeyAuthentication read back from a signed request or a stored record, or undefined. */
export function readKeyAuthentication(value: unknown): KeyAuthentication | undefined {
  if (!isRecord(value) || value.method !== "private_key_jwt" || !isRecord(value.keys)) return undefined;
  const alg = typeof value.alg === "string" ? { alg: value.alg } : {};
  const uri = httpsUrl(value.keys.jwksUri);
  if (uri !== undefined) return { method: "private_key_jwt", keys: { jwksUri: uri }, ...alg };
  const set = publicKeySet(value.keys.jwks);
  return typeof set === "string" ? undefined : { method: "private_key_jwt", keys: { jwks: set }, ...alg };
}

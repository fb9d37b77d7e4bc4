// Dynamic client registration (RFC 7591), for the MCP hosts with no Client ID Metadata Document:
// public clients only; only the name and the checked redirect URIs are kept (RFC 8252 7),
// everything else left out of the answer (RFC 7591 3.2.1). See docs/security.md.
import { redirectKindOf } from "../core/redirect-kind.ts";
import { parseRedirectUri, sameOrigin } from "../core/urls.ts";
import { InvalidClientMetadata, InvalidRedirectUri } from "../errors.ts";
import { MAX_REGISTERED_REDIRECT_URIS } from "../core/policy.ts";

/** What a registration keeps: all of it travels in the client_id (clients/registered-clients.ts). */
export interface Registration {
  /** The app's name for itself, cleaned; absent when it gave none. */
  name?: string;
  /** Absolute redirect URIs (URL.href form), each once. */
  redirectUris: string[];
}

/** A registered name, at most this many characters: enough for any app, short in the client_id. */
const MAX_REGISTERED_NAME = 60;
const MAX_REDIRECT_URI_LENGTH = 512;

const SECRET_METHODS = new Set(["client_secret_basic", "client_secret_post", "client_secret_jwt"]);

/** Control characters and bidi overrides removed, whitespace collapsed, capped (in code points). */
export function cleanRegisteredName(raw: string): string | undefined {
  const flat = raw
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const capped = Array.from(flat).slice(0, MAX_REGISTERED_NAME).join("").trim();
  return capped === "" ? undefined : capped;
}

/** Why a redirect URI cannot be registered, or null. `serverOrigin`: this server's own pages
 * are no app's callback (a code must not land among them). */
export function redirectUriRefusal(raw: string, serverOrigin: URL): string | null {
  if (raw.length > MAX_REDIRECT_URI_LENGTH)
    return `a redirect URI is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (raw.includes("*")) return `${raw} holds a wildcard: each redirect URI is registered exactly`;
  const parsed = parseRedirectUri(raw);
  if (!parsed.ok) return `${raw.slice(0, 100)}: ${parsed.reason}`;
  const kind = redirectKindOf(parsed.url);
  if (kind === null) {
    return parsed.url.protocol === "http:"
      ? `${raw}: http is allowed on a loopback address only (127.0.0.1, [::1] or localhost); use https`
      : `${raw}: a redirect URI is https, http on a loopback address, or an app's own scheme in reverse-domain form (RFC 8252 7.1, e.g. com.example.app:/callback)`;
  }
  if (sameOrigin(parsed.url, serverOrigin)) return `${raw} is on this server itself, which is no app's callback`;
  return null;
}

function stringList(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    throw new InvalidClientMetadata(`${name} must be a list of strings.`);
  return value;
}

function checkAuthentication(method: unknown): void {
  if (method === undefined || method === "none") return;
  if (typeof method !== "string") throw new InvalidClientMetadata("token_endpoint_auth_method must be a string.");
  if (SECRET_METHODS.has(method)) {
    throw new InvalidClientMetadata(
      `token_endpoint_auth_method ${method} needs a shared secret: this server registers public clients only (none), with PKCE.`,
    );
  }
  throw new InvalidClientMetadata(
    `token_endpoint_auth_method ${method.slice(0, 60)} is not supported here: register with none (a public client, with PKCE).`,
  );
}

function checkGrants(body: Record<string, unknown>): void {
  const grants = stringList(body.grant_types, "grant_types");
  // Others (VS Code's device_code, jwt-bearer...) are ignored: this server never issues them.
  if (grants !== undefined && !grants.includes("authorization_code")) {
    throw new InvalidClientMetadata(
      "grant_types must include authorization_code: this server signs apps in with codes only.",
    );
  }
  const responses = stringList(body.response_types, "response_types");
  if (responses !== undefined && !responses.includes("code"))
    throw new InvalidClientMetadata("response_types must include code.");
}

function checkRedirectUris(value: unknown, serverOrigin: URL): string[] {
  const uris = stringList(value, "redirect_uris");
  if (uris === undefined || uris.length === 0)
    throw new InvalidRedirectUri("redirect_uris is required: the addresses this app receives its sign-ins at.");
  const unique = [...new Set(uris)];
  if (unique.length > MAX_REGISTERED_REDIRECT_URIS)
    throw new InvalidRedirectUri(`At most ${MAX_REGISTERED_REDIRECT_URIS} redirect_uris may be registered.`);
  for (const uri of unique) {
    const refusal = redirectUriRefusal(uri, serverOrigin);
    if (refusal !== null) throw new InvalidRedirectUri(`This redirect URI cannot be registered: ${refusal}.`);
  }
  return [...new Set(unique.map((uri) => new URL(uri).href))];
}

/** The registration a request's metadata asks for, or the RFC 7591 refusal. `serverOrigin`:
 * this server's own, where no app's redirect URI may be. */
export function readRegistration(body: Record<string, unknown>, serverOrigin: URL): Registration {
  checkAuthentication(body.token_endpoint_auth_method);
  checkGrants(body);
  const redirectUris = checkRedirectUris(body.redirect_uris, serverOrigin);
  if (body.client_name !== undefined && typeof body.client_name !== "string")
    throw new InvalidClientMetadata("client_name must be a string.");
  const name = typeof body.client_name === "string" ? cleanRegisteredName(body.client_name) : undefined;
  return name === undefined ? { redirectUris } : { name, redirectUris };
}

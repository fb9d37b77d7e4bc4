// An app that registered itself (POST /register) gets a client_id carrying its whole
// registration, signed: `<base>/register/<payload>.<tag>`, the tag an HMAC (128 bits) under a key
// of its own over the payload and FORMAT, so it passes for no other signed object. Nothing is
// stored; GET at that address reads it as a metadata document (endpoints/registration.ts). An
// HMAC rather than a JWS: synchronous, shorter, nothing loaded. See docs/security.md.
import { createHmac, randomBytes } from "node:crypto";
import { constantTimeEqual } from "../crypto/secrets.ts";
import type { ClientInfo } from "../core/client-shape.ts";
import { InvalidClientMetadata } from "../errors.ts";
import { cleanRegisteredName, redirectUriRefusal, type Registration } from "./client-registration.ts";
import { MAX_REGISTERED_REDIRECT_URIS } from "../core/policy.ts";
import { jsonOf } from "../core/json.ts";

/** POST registers; GET `<this>/<id>` is a registered app's metadata document. */
export const REGISTRATION_PATH = "/register";
/** The signed format's name: part of what the tag covers. */
const FORMAT = "indieauth-registered-client/1";
const TAG_BYTES = 16;
const NONCE_BYTES = 9;
/** client_ids are read up to 2,048 characters (core/urls.ts): a registration must fit well within. */
const MAX_CLIENT_ID_LENGTH = 2000;

/** Every registered app, in every metadata document and registration answer, is a public client
 * that may refresh its tokens (this server issues refresh tokens to every app). */
const REGISTERED_CLIENT_METADATA = {
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
} as const;

function tagOf(key: Uint8Array, payload: string): string {
  return createHmac("sha256", key)
    .update(`${FORMAT}.${payload}`, "utf8")
    .digest()
    .subarray(0, TAG_BYTES)
    .toString("base64url");
}

export function registeredClientId(baseUrl: string, key: Uint8Array, registration: Registration): string {
  const nonce = randomBytes(NONCE_BYTES).toString("base64url");
  const payload = Buffer.from(
    JSON.stringify([registration.name ?? "", registration.redirectUris, nonce]),
    "utf8",
  ).toString("base64url");
  const clientId = `${baseUrl}${REGISTRATION_PATH}/${payload}.${tagOf(key, payload)}`;
  if (clientId.length > MAX_CLIENT_ID_LENGTH)
    throw new InvalidClientMetadata(
      "The registration is too long: register a shorter client_name or fewer, shorter redirect_uris.",
    );
  return clientId;
}

/** The registration a payload holds, checked again as registration checks it, or null. */
function registrationIn(payload: string, serverOrigin: URL): Registration | null {
  const value = jsonOf(Buffer.from(payload, "base64url").toString("utf8"));
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [name, uris] = value as unknown[];
  if (
    typeof name !== "string" ||
    !Array.isArray(uris) ||
    uris.length === 0 ||
    uris.length > MAX_REGISTERED_REDIRECT_URIS
  )
    return null;
  if (!uris.every((uri): uri is string => typeof uri === "string" && redirectUriRefusal(uri, serverOrigin) === null))
    return null;
  const cleaned = cleanRegisteredName(name);
  return cleaned === undefined ? { redirectUris: uris } : { name: cleaned, redirectUris: uris };
}

type RegisteredClientId = { registration: Registration } | { invalid: string };

/** What a client_id at /register on this server's host carries (any scheme or port: such an
 * address is never fetched, this server's own least of all): its registration, or why it is not
 * one this server signed. Null for any other client_id. */
export function readRegisteredClientId(baseUrl: string, key: Uint8Array, clientId: URL): RegisteredClientId | null {
  const ours =
    clientId.hostname === new URL(baseUrl).hostname &&
    (clientId.pathname === REGISTRATION_PATH || clientId.pathname.startsWith(`${REGISTRATION_PATH}/`));
  if (!ours) return null;
  const invalid = { invalid: "this server did not issue that client_id (or its SECRET has changed since)" };
  const prefix = `${baseUrl}${REGISTRATION_PATH}/`;
  if (!clientId.href.startsWith(prefix)) return invalid;
  const id = clientId.href.slice(prefix.length);
  const dot = id.lastIndexOf(".");
  if (clientId.search !== "" || dot < 1 || !/^[A-Za-z0-9_-]+$/.test(id.slice(0, dot))) return invalid;
  const payload = id.slice(0, dot);
  if (!constantTimeEqual(id.slice(dot + 1), tagOf(key, payload))) return invalid;
  const registration = registrationIn(payload, new URL(baseUrl));
  return registration ? { registration } : invalid;
}

/** A registered app as the sign-in knows it (protocol/authorization-request.ts, knownClient):
 * exactly its registered redirect URIs, its name its own claim; undefined for any other client_id. */
export function registeredClientInfo(baseUrl: string, key: Uint8Array, clientId: URL): ClientInfo | undefined {
  const read = readRegisteredClientId(baseUrl, key, clientId);
  if (read === null) return undefined;
  if ("invalid" in read)
    return { clientId: clientId.href, redirectUris: [], fetched: false, registered: true, refused: read.invalid };
  const { name, redirectUris } = read.registration;
  return {
    clientId: clientId.href,
    redirectUris,
    fetched: true,
    metadataDocument: true,
    registered: true,
    ...(name === undefined ? {} : { name }),
  };
}

/** The registration as a Client ID Metadata Document (and, with `client_id_issued_at`, as the
 * RFC 7591 answer to it). */
export function registeredDocument(clientId: string, registration: Registration): Record<string, unknown> {
  return {
    client_id: clientId,
    ...(registration.name === undefined ? {} : { client_name: registration.name }),
    redirect_uris: registration.redirectUris,
    ...REGISTERED_CLIENT_METADATA,
  };
}

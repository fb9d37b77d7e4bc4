// Reading what a client publishes at its client_id URL (IndieAuth 4.2): a Client ID Metadata
// Document (JSON, held to draft-ietf-oauth-client-id-metadata-document, stricter than IndieAuth)
// or, for older clients, an HTML page with an h-app and rel=redirect_uri links or Link headers
// (4.2.2). Everything here is untrusted input: URLs are resolved and filtered, the name is
// cleaned, and nothing ever throws.
import type { FetchedDocument } from "./safe-fetch.ts";
import { mediaType } from "../core/media-type.ts";
import { parseRedirectUri, sameOrigin, urlOf } from "../core/urls.ts";
import { linkTargets } from "./link-header.ts";
import { parseMicroformats } from "./microformats.ts";
import type { ClientInfo } from "../core/client-shape.ts";
import { declaredAuthentication, hasPrivateKeyMaterial, isRecord } from "./client-keys.ts";
import { MAX_METADATA_DOCUMENT_BYTES } from "../core/policy.ts";
import { jsonOf } from "../core/json.ts";

/** A client whose metadata document was refused: as if it had not been fetched. */
export function refusedClient(clientId: string, reason: string): ClientInfo {
  return { clientId, redirectUris: [], fetched: false, refused: reason };
}

const MAX_NAME_LENGTH = 100;
// Enough for any real client; keeps a hostile document from filling the cache.
const MAX_REDIRECT_URIS = 100;

/** Control characters and bidi overrides (which can make a name read backwards) removed,
 * whitespace collapsed, at most 100 characters (code points, so no half surrogate pair). */
function cleanName(raw: unknown): string | undefined {
  if (typeof raw !== "string") return undefined;
  const flat = raw
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const capped = Array.from(flat).slice(0, MAX_NAME_LENGTH).join("").trim();
  return capped === "" ? undefined : capped;
}

/** An http(s) URL resolved against the document, or undefined (no javascript:, data:, ...). */
function httpUrl(raw: unknown, base: string): URL | undefined {
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const url = urlOf(raw.trim(), base);
  return url?.protocol === "http:" || url?.protocol === "https:" ? url : undefined;
}

/** A redirect URI resolved against the document and held to the same rules as the one in
 * the request (custom schemes allowed for native apps, never javascript: or data:). */
function redirectUri(raw: unknown, base: string): string | undefined {
  if (typeof raw !== "string" || raw.trim() === "") return undefined;
  const resolved = urlOf(raw.trim(), base);
  if (!resolved) return undefined;
  const checked = parseRedirectUri(resolved.href);
  return checked.ok ? checked.url.href : undefined;
}

function uniqueRedirectUris(candidates: unknown[], base: string): string[] {
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const uri = redirectUri(candidate, base);
    if (uri !== undefined) seen.add(uri);
    if (seen.size >= MAX_REDIRECT_URIS) break;
  }
  return [...seen];
}

// JSON: Client ID Metadata Document (4.2.1)

/** Why a response cannot be a Client ID Metadata Document (draft 3, 4, 5, 8.7), or null. */
function responseRefusal(doc: FetchedDocument, clientId: string): string | null {
  if (!clientId.startsWith("https://")) return "a client metadata document is read only from an https client_id";
  if (doc.status !== 200) return `the document was served with status ${doc.status}, not 200`;
  if (doc.redirected === true || doc.url !== clientId)
    return "the document was reached through a redirect, which is not followed for it";
  if (doc.oversized === true || Buffer.byteLength(doc.body, "utf8") > MAX_METADATA_DOCUMENT_BYTES)
    return `the document is larger than ${MAX_METADATA_DOCUMENT_BYTES / 1024} KB`;
  return null;
}

/** Why a document does not speak for the client_id it was fetched for (draft 4, 5.1), or null:
 * by simple string comparison (draft 3), it names that very client_id, or it could be a copy of
 * another app's metadata. */
function identityRefusal(json: Record<string, unknown>, clientId: string): string | null {
  if (typeof json.client_id !== "string") return "the document has no client_id";
  if (json.client_id !== clientId)
    return `the document's client_id (${json.client_id.slice(0, 200)}) is not exactly its own URL`;
  return null;
}

/** Why a document's content is refused (draft 4, 4.1), or null. */
function contentRefusal(json: Record<string, unknown>): string | null {
  const secret = Object.keys(json).find((name) => name.startsWith("client_secret"));
  if (secret !== undefined) return `the document holds ${secret}, but a public document cannot hold a secret`;
  if (hasPrivateKeyMaterial(json.jwks)) return "the document publishes private key material";
  return null;
}

function fromMetadata(json: unknown, doc: FetchedDocument, clientId: string): ClientInfo {
  if (!isRecord(json)) return refusedClient(clientId, "the document is not a JSON object");
  const identity = identityRefusal(json, clientId);
  if (identity !== null) return { ...refusedClient(clientId, identity), identityRefused: true };
  const refusal = contentRefusal(json);
  if (refusal !== null) return refusedClient(clientId, refusal);
  const declared = declaredAuthentication(json);
  if ("refused" in declared) return { ...refusedClient(clientId, declared.refused), authenticationRefused: true };

  const info: ClientInfo = { clientId, redirectUris: [], fetched: true, metadataDocument: true };
  if (declared.authentication) info.authentication = declared.authentication;
  const name = cleanName(json.client_name);
  if (name !== undefined) info.name = name;

  // client_uri MUST be a prefix of client_id; an unrelated client_uri is dropped, not shown.
  const uri = httpUrl(json.client_uri, doc.url);
  const id = httpUrl(clientId, doc.url);
  if (uri !== undefined && id !== undefined && sameOrigin(uri, id) && id.href.startsWith(uri.href)) info.uri = uri.href;

  const logo = httpUrl(json.logo_uri, doc.url);
  if (logo !== undefined) info.logoUri = logo.href;

  if (Array.isArray(json.redirect_uris)) info.redirectUris = uniqueRedirectUris(json.redirect_uris, doc.url);
  return info;
}

// HTML: h-app / h-x-app and rel=redirect_uri (4.2.1 note, 4.2.2)

interface MfItem {
  type?: string[];
  properties: Record<string, unknown[]>;
  children?: MfItem[];
}

/** First h-app or h-x-app, depth first (it may be nested inside another item). */
function findApp(items: MfItem[]): MfItem | undefined {
  for (const item of items) {
    if (item.type?.some((t) => t === "h-app" || t === "h-x-app")) return item;
    const nested = findApp(item.children ?? []);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/** A property's first value as text: a plain string or the `value` of an object such as an
 * image `{value, alt}`. */
function firstText(item: MfItem, property: string): string | undefined {
  const first = item.properties[property]?.[0];
  if (typeof first === "string") return first;
  if (isRecord(first) && typeof first.value === "string") return first.value;
  return undefined;
}

async function fromHtml(doc: FetchedDocument): Promise<{ app: Partial<ClientInfo>; redirects: string[] }> {
  const parsed = await parseMicroformats(doc.body, doc.url, { rels: ["redirect_uri"], roots: ["h-app", "h-x-app"] });
  if (!parsed) return { app: {}, redirects: [] };
  const app: Partial<ClientInfo> = {};
  const item = findApp(parsed.items);
  if (item !== undefined) {
    const name = cleanName(firstText(item, "name"));
    if (name !== undefined) app.name = name;
    const url = httpUrl(firstText(item, "url"), doc.url);
    if (url !== undefined) app.uri = url.href;
    const logo = httpUrl(firstText(item, "logo"), doc.url);
    if (logo !== undefined) app.logoUri = logo.href;
  }
  return { app, redirects: parsed.rels.redirect_uri ?? [] };
}

function looksLikeJson(doc: FetchedDocument): boolean {
  const type = mediaType(doc.contentType);
  return type === "application/json" || type.endsWith("+json") || doc.body.trimStart().startsWith("{");
}

/** An HTML page, or an answer with no type, read as one. */
export function isHtmlType(contentType: string): boolean {
  const type = mediaType(contentType);
  return type === "" || type === "text/html" || type === "application/xhtml+xml";
}

/** Client information from a fetched client_id document. Never throws: an unreadable page
 * gives the bare `{ clientId, redirectUris: [], fetched: true }`; a refused metadata document,
 * `{ clientId, redirectUris: [], fetched: false, refused }`. */
export async function parseClientDocument(doc: FetchedDocument, clientId: string): Promise<ClientInfo> {
  const bare: ClientInfo = { clientId, redirectUris: [], fetched: true };
  try {
    if (looksLikeJson(doc)) {
      const refusal = responseRefusal(doc, clientId);
      if (refusal !== null) return refusedClient(clientId, refusal);
      const json = jsonOf(doc.body);
      if (json === undefined) return refusedClient(clientId, "the document is not valid JSON");
      // The metadata document is complete on its own; Link headers belong to the HTML form.
      return fromMetadata(json, doc, clientId);
    }
    const html = isHtmlType(doc.contentType) ? await fromHtml(doc) : { app: {}, redirects: [] };
    const fromHeaders = linkTargets(doc.linkHeaders, "redirect_uri");
    return {
      ...bare,
      ...html.app,
      redirectUris: uniqueRedirectUris([...fromHeaders, ...html.redirects], doc.url),
    };
  } catch {
    return bare;
  }
}

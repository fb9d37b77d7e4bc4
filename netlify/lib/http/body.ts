// Reading request bodies, refusing oversized ones before they are parsed. Each route declares
// the body it accepts (http/endpoint.ts): the OAuth endpoints the standard's form only; the
// owner's pages and console fields however a browser or their scripts post them.
import { InvalidRequest, PayloadTooLarge } from "../errors.ts";
import { MAX_BODY_BYTES } from "../core/policy.ts";
import { mediaType } from "../core/media-type.ts";

/** The body a route accepts, and the field names its handler reads (docs/architecture.md,
 * "Flows"); fields not named are never read (RFC 6749 3.1). Each field at most once (another
 * party, a proxy or a library, may read the other value), but those named `repeatable`. A body
 * without a Content-Type is read as a form (Python's requests sends a string body so), and an
 * empty body as no fields, whatever its type. */
export type BodyRule<P extends string> =
  | "none"
  | { oauthForm: readonly P[]; repeatable?: readonly P[] }
  | { form: readonly P[]; repeatable?: readonly P[] }
  | { json: { maxBytes: number } };

/** The body as read: its fields (none for a JSON object), and the object. */
export interface ReadBody {
  form: URLSearchParams;
  json?: Record<string, unknown>;
}

const FORM_TYPE = "application/x-www-form-urlencoded";

const isJson = (type: string): boolean => type === "application/json" || type.endsWith("+json");

/** Reads a body as the route's rule says, refusing oversized bodies before parsing. */
export async function readBody(req: Request, rule: BodyRule<string>, answersJson: boolean): Promise<ReadBody> {
  const maxBytes = rule !== "none" && "json" in rule ? rule.json.maxBytes : MAX_BODY_BYTES;
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new PayloadTooLarge(`The request body is larger than ${maxBytes} bytes.`);
  const type = mediaType(req.headers.get("content-type"));
  if (rule !== "none" && "json" in rule) {
    if (!isJson(type)) throw new InvalidRequest("The body must be a JSON object, sent as application/json.");
    return { form: new URLSearchParams(), json: jsonObject(await readLimited(req, maxBytes)) };
  }
  // Read (up to the limit) before the type is judged: an oversized body is a 413 whatever it is.
  const body = await readLimited(req, maxBytes);
  if (body.length === 0) return { form: new URLSearchParams() };
  if (rule === "none") throw new InvalidRequest("This request takes no body.");
  const form = "oauthForm" in rule ? oauthForm(type, body) : await fields(req, type, body, answersJson);
  return { form: onceEach(form, rule.repeatable ?? []) };
}

async function fields(req: Request, type: string, body: Buffer, answersJson: boolean): Promise<URLSearchParams> {
  if (type === FORM_TYPE || type === "") return urlencoded(body);
  if (type === "multipart/form-data") return multipart(req, body);
  if (answersJson && isJson(type)) return jsonToParams(body);
  throw new InvalidRequest("The body must be application/x-www-form-urlencoded.");
}

/** RFC 6749 3.1: no parameter twice, but those the route lets repeat. */
function onceEach(params: URLSearchParams, repeatable: readonly string[]): URLSearchParams {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name) && !repeatable.includes(name))
      throw new InvalidRequest(`The parameter ${name} is given more than once.`);
    seen.add(name);
  }
  return params;
}

/** RFC 6749 3.2 (and 7009 2.1, 7662 2.1): the parameters come form-encoded. */
function oauthForm(type: string, body: Buffer): URLSearchParams {
  if (type !== FORM_TYPE && type !== "") {
    throw new InvalidRequest(
      "The body must be application/x-www-form-urlencoded (RFC 6749 3.2): a JSON, multipart or text body is not read here.",
    );
  }
  return urlencoded(body);
}

const urlencoded = (body: Buffer): URLSearchParams => new URLSearchParams(new TextDecoder().decode(body));

async function multipart(req: Request, body: Buffer): Promise<URLSearchParams> {
  try {
    const form = await new Response(new Uint8Array(body), {
      headers: { "content-type": req.headers.get("content-type")! },
    }).formData();
    const params = new URLSearchParams();
    for (const [key, value] of form) if (typeof value === "string") params.append(key, value);
    return params;
  } catch {
    throw new InvalidRequest("The multipart body could not be read.");
  }
}

/** A body that must be one JSON object (for `json` routes, of any members: RFC 7591 client metadata). */
function jsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new InvalidRequest("The JSON body could not be parsed.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new InvalidRequest("The JSON body must be an object.");
  return value as Record<string, unknown>;
}

/** A JSON body of string values (and arrays of strings), read as form fields. */
function jsonToParams(body: Buffer): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, field] of Object.entries(jsonObject(body))) {
    const values = Array.isArray(field) ? field : [field];
    for (const item of values) {
      if (typeof item !== "string") throw new InvalidRequest(`The JSON field ${key} must be a string.`);
      params.append(key, item);
    }
  }
  return params;
}

async function readLimited(req: Request, maxBytes: number): Promise<Buffer> {
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new PayloadTooLarge(`The request body is larger than ${maxBytes} bytes.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

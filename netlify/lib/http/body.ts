// Reading request bodies: form-encoded, multipart, or (for the JSON APIs) a flat JSON object,
// refusing oversized bodies before they are parsed.
import { InvalidRequest, PayloadTooLarge } from "../errors.ts";

/** Bodies larger than this are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Reads a form body (urlencoded or multipart, or a flat JSON object when `json` is allowed),
 * refusing oversized bodies before parsing. */
export async function readForm(req: Request, maxBytes = MAX_BODY_BYTES, options: { json?: boolean } = {}): Promise<URLSearchParams> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new PayloadTooLarge(`The request body is larger than ${maxBytes} bytes.`);
  const type = (req.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  const body = await readLimited(req, maxBytes);
  if (type === "application/x-www-form-urlencoded" || (type === "" && body.length > 0)) {
    return new URLSearchParams(new TextDecoder().decode(body));
  }
  if (type === "multipart/form-data") {
    try {
      const form = await new Response(new Uint8Array(body), { headers: { "content-type": req.headers.get("content-type")! } }).formData();
      const params = new URLSearchParams();
      for (const [key, value] of form) if (typeof value === "string") params.append(key, value);
      return params;
    } catch {
      throw new InvalidRequest("The multipart body could not be read.");
    }
  }
  if (options.json && (type === "application/json" || type.endsWith("+json"))) return jsonToParams(body);
  if (body.length === 0) return new URLSearchParams();
  throw new InvalidRequest("The body must be application/x-www-form-urlencoded.");
}

/** A body that must be one JSON object. */
function jsonObject(body: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new InvalidRequest("The JSON body could not be parsed.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new InvalidRequest("The JSON body must be an object.");
  return value as Record<string, unknown>;
}

/** A JSON object of any members (RFC 7591 client metadata: lists, objects, numbers), as sent
 * with Content-Type application/json, refused when larger than `maxBytes` before it is parsed. */
export async function readJsonObject(req: Request, maxBytes: number): Promise<Record<string, unknown>> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new PayloadTooLarge(`The request body is larger than ${maxBytes} bytes.`);
  const type = (req.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json")) throw new InvalidRequest("The body must be a JSON object, sent as application/json.");
  return jsonObject(await readLimited(req, maxBytes));
}

/** A JSON body of string values (and arrays of strings), read as form fields. */
function jsonToParams(body: Buffer): URLSearchParams {
  const value = jsonObject(body);
  const params = new URLSearchParams();
  for (const [key, field] of Object.entries(value)) {
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

// Turning results and OAuth errors into Responses with the right headers, and reading bodies.
import { InsufficientScope, InvalidRequest, InvalidToken, MissingBearerToken, OAuthError, PayloadTooLarge, TooManyAttempts } from "../errors.ts";
import { renderMessagePage, type MessagePage } from "./message-page.ts";

/** Bodies larger than this are refused with 413 before parsing. */
export const MAX_BODY_BYTES = 64 * 1024;

export const COMMON_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
} as const;

/** The pages functions render: no script at all, no framing, nothing cached. */
export const PAGE_SECURITY_HEADERS = {
  ...COMMON_HEADERS,
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
} as const;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      ...COMMON_HEADERS,
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      ...headers,
    },
  });
}

/** RFC 6750 3: the Bearer challenge of a protected resource's error. */
function bearerChallenge(error: OAuthError): string | undefined {
  if (error instanceof MissingBearerToken) return 'Bearer realm="indieauth"';
  if (error instanceof InvalidToken) return `Bearer realm="indieauth", error="invalid_token", error_description="${error.description}"`;
  if (error instanceof InsufficientScope) {
    return `Bearer realm="indieauth", error="insufficient_scope", scope="${error.scope}", error_description="${error.description}"`;
  }
  return undefined;
}

export function oauthErrorResponse(error: OAuthError, headers: Record<string, string> = {}): Response {
  const extra: Record<string, string> = { ...headers };
  if (error instanceof TooManyAttempts) extra["Retry-After"] = String(error.retryAfterSeconds);
  const challenge = bearerChallenge(error);
  if (challenge) extra["WWW-Authenticate"] = challenge;
  return json({ error: error.error, error_description: error.description }, error.status, extra);
}

/** Runs a JSON endpoint's work, answering any OAuth error it throws with the standard body. */
export async function answeringOAuthErrors(work: () => Promise<Response>, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error, headers);
    throw error;
  }
}

export function page(content: MessagePage, status: number, headers: Record<string, string> = {}): Response {
  return new Response(renderMessagePage(content), {
    status,
    headers: { ...PAGE_SECURITY_HEADERS, "Content-Type": "text/html; charset=utf-8", ...headers },
  });
}

export function redirect(location: string, status: 302 | 303 = 302): Response {
  return new Response(null, {
    status,
    headers: { ...COMMON_HEADERS, Location: location, "Cache-Control": "no-store" },
  });
}

export function methodNotAllowed(allow: string[]): Response {
  return json(
    { error: "invalid_request", error_description: `This endpoint accepts ${allow.join(", ")} only.` },
    405,
    { Allow: allow.join(", ") },
  );
}

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

/** A JSON body of string values (and arrays of strings), read as form fields. */
function jsonToParams(body: Buffer): URLSearchParams {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new InvalidRequest("The JSON body could not be parsed.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new InvalidRequest("The JSON body must be an object.");
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

/** Refuses cross-site posts. Browsers send Sec-Fetch-Site (which pages cannot forge) and, on
 * older ones, Origin. A page served with Referrer-Policy: no-referrer, like the sign-in page,
 * posts with `Origin: null`, so when Sec-Fetch-Site says same-origin that is accepted. */
export function isSameOriginPost(req: Request, origin: string): boolean {
  const site = req.headers.get("sec-fetch-site");
  const requestOrigin = req.headers.get("origin");
  if (site !== null) return site === "same-origin" && (requestOrigin === null || requestOrigin === "null" || requestOrigin === origin);
  return requestOrigin === origin;
}

/** The token in `Authorization: Bearer <token>` (RFC 6750 2.1); null without one, "malformed"
 * for an Authorization header that is not a usable Bearer credential. */
export function bearerToken(req: Request): string | null | "malformed" {
  const header = req.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? match[1]! : "malformed";
}

/** Browser-based clients call the token endpoints from other origins; no cookies are involved,
 * so any origin may read the answers. */
export function withCors(handler: (req: Request) => Promise<Response>, methods: string[]): (req: Request) => Promise<Response> {
  return async (req) => {
    if (req.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "Access-Control-Allow-Origin": "*",
          "Access-Control-Allow-Methods": methods.join(", "),
          "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept",
          "Access-Control-Max-Age": "86400",
        },
      });
    }
    const response = await handler(req);
    response.headers.set("Access-Control-Allow-Origin", "*");
    response.headers.set("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After");
    return response;
  };
}

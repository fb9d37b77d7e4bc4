// Where a resource server finds the access token in a request (RFC 6750 2): the Authorization
// header, or, for Micropub clients that send it so, the `access_token` field of a form body
// (urlencoded or multipart). Never in the URL: URLs end up in logs.
import { bearerToken } from "../http/request.ts";

export type RequestToken =
  | { found: true; token: string }
  | { found: false; reason: "missing" | "malformed" | "invalid-request"; description: string };

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

function isFormBody(req: Request): boolean {
  if (req.method === "GET" || req.method === "HEAD" || req.body === null) return false;
  const type = (req.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  return FORM_TYPES.has(type);
}

/** The `access_token` field of a form body, read from a copy of the request, so that the
 * function can still read the body itself. */
async function tokenInBody(req: Request): Promise<RequestToken> {
  let field: FormDataEntryValue | null;
  try {
    field = (await req.clone().formData()).get("access_token");
  } catch {
    return { found: false, reason: "invalid-request", description: "The form body could not be read (was it read before the token was checked?)." };
  }
  if (field === null || field === "") return { found: false, reason: "missing", description: "An access token is required." };
  if (typeof field !== "string") return { found: false, reason: "invalid-request", description: "access_token must be a plain form field." };
  return { found: true, token: field };
}

export async function tokenOfRequest(req: Request): Promise<RequestToken> {
  if (new URL(req.url).searchParams.has("access_token")) {
    return { found: false, reason: "invalid-request", description: "Send the access token in the Authorization header or the form body, never in the URL (URLs are logged)." };
  }
  const bearer = bearerToken(req);
  if (bearer === "malformed") return { found: false, reason: "malformed", description: "The Authorization header is not a Bearer token." };
  if (bearer !== null) return { found: true, token: bearer };
  if (isFormBody(req)) return tokenInBody(req);
  return { found: false, reason: "missing", description: "An access token is required." };
}

// Where a resource server finds the access token in a request (RFC 6750 2): the Authorization
// header, or, for Micropub clients that send it so, the `access_token` field of a form body
// (urlencoded or multipart). Never in the URL: URLs end up in logs. Never in both the header
// and the body (RFC 6750 2: one method per request): which one would count is a guess, and
// two different tokens let one party's token ride on another's request.
import { bearerToken } from "../http/request.ts";
import { mediaType } from "../core/media-type.ts";

type RequestToken =
  | { found: true; token: string }
  | { found: false; reason: "missing" | "malformed" | "invalid-request"; description: string };

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

function isFormBody(req: Request): boolean {
  if (req.method === "GET" || req.method === "HEAD" || req.body === null) return false;
  const type = mediaType(req.headers.get("content-type"));
  return FORM_TYPES.has(type);
}

/** The `access_token` field of a form body, read from a copy of the request, so that the
 * function can still read the body itself. */
async function tokenInBody(req: Request): Promise<RequestToken> {
  let field: FormDataEntryValue | null;
  try {
    field = (await req.clone().formData()).get("access_token");
  } catch {
    return {
      found: false,
      reason: "invalid-request",
      description: "The form body could not be read (was it read before the token was checked?).",
    };
  }
  if (field === null || field === "")
    return { found: false, reason: "missing", description: "An access token is required." };
  if (typeof field !== "string")
    return { found: false, reason: "invalid-request", description: "access_token must be a plain form field." };
  return { found: true, token: field };
}

const BOTH = "Send the access token in the Authorization header or in the form body, not in both (RFC 6750 2).";

export async function tokenOfRequest(req: Request): Promise<RequestToken> {
  if (new URL(req.url).searchParams.has("access_token")) {
    return {
      found: false,
      reason: "invalid-request",
      description:
        "Send the access token in the Authorization header or the form body, never in the URL (URLs are logged).",
    };
  }
  const bearer = bearerToken(req);
  if (bearer === "malformed")
    return { found: false, reason: "malformed", description: "The Authorization header is not a Bearer token." };
  const inBody = isFormBody(req) ? await tokenInBody(req) : null;
  if (bearer === null)
    return inBody ?? { found: false, reason: "missing", description: "An access token is required." };
  // A body that cannot be read may hold a second token as well as not: refused the same.
  if (inBody === null || (!inBody.found && inBody.reason === "missing")) return { found: true, token: bearer };
  return { found: false, reason: "invalid-request", description: inBody.found ? BOTH : inBody.description };
}

// What a request says about where it comes from and what it carries.

/** Refuses cross-site posts. Browsers send Sec-Fetch-Site (which pages cannot forge) and, on
 * older ones, Origin. A page served with Referrer-Policy: no-referrer, like the sign-in page,
 * posts with `Origin: null`, so when Sec-Fetch-Site says same-origin that is accepted. */
export function isSameOriginPost(req: Request, origin: string): boolean {
  const site = req.headers.get("sec-fetch-site");
  const requestOrigin = req.headers.get("origin");
  if (site !== null)
    return site === "same-origin" && (requestOrigin === null || requestOrigin === "null" || requestOrigin === origin);
  return requestOrigin === origin;
}

/** The token in `Authorization: Bearer <token>` (RFC 6750 2.1); null without one, "malformed"
 * for an Authorization header that is not a usable Bearer credential. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- "malformed" names the answer; no token is that word (each is a long random secret).
export function bearerToken(req: Request): string | null | "malformed" {
  const header = req.headers.get("authorization");
  if (header === null) return null;
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match ? match[1]! : "malformed";
}

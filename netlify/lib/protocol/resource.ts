// Resource indicators (RFC 8707): which protected resource a token is for. MCP hosts send
// `resource` at /auth and again at /token. A grant is made for at most one resource (what MCP
// hosts ask for); its access tokens are for that resource alone, and introspection answers it
// as `aud`. The value is kept exactly as sent: a resource server compares it with its own URL.
import type { Fields } from "../core/fields.ts";
import { InvalidTarget } from "../errors.ts";
import { isLoopbackHost, urlOf } from "../core/urls.ts";

const MAX_RESOURCE_LENGTH = 2048;
const NOT_HTTPS = "resource must be an absolute https URI (http only on this device: localhost, 127.0.0.1, [::1]).";

/** The resource a request names (at most one), or undefined when it names none. Throws
 * InvalidTarget for more than one, or for anything but an absolute https URI without a
 * fragment or user information (RFC 8707 2: absolute, no fragment; https because the sign-in
 * page shows it to the owner as the one place the token is good, and the token travels there;
 * plain http only to a loopback host, an MCP server on the owner's own machine). User
 * information (`https://jane.example@evil.example/mcp`) would make another host read as the
 * owner's: it has no place in a resource's identifier. */
export function requestedResource(params: Fields<"resource">): string | undefined {
  const values = params.getAll("resource");
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new InvalidTarget("Only one resource may be asked for at a time.");
  const raw = values[0]!;
  if (raw === "") throw new InvalidTarget("resource is empty.");
  if (raw.length > MAX_RESOURCE_LENGTH) throw new InvalidTarget("resource is too long.");
  if (raw.includes("#")) throw new InvalidTarget("resource must not contain a fragment (RFC 8707).");
  // "https:example.com" parses too, as a relative reference would; only the full form is absolute.
  const authority = /^https?:\/\/([^/?]*)/i.exec(raw)?.[1];
  if (!authority || /[\s\\]/.test(raw)) throw new InvalidTarget(NOT_HTTPS);
  // Checked as written: the URL parser drops an empty one ("https://@evil.example/").
  if (authority.includes("@"))
    throw new InvalidTarget("resource must not contain user information (a name and @ before the host).");
  const url = urlOf(raw);
  if (!url) throw new InvalidTarget(NOT_HTTPS);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
    throw new InvalidTarget(NOT_HTTPS);
  return raw;
}

/** A token request may repeat the resource its code or grant was made for, or name none (which
 * keeps it); anything else would widen the token's audience. (With one resource per grant,
 * narrowing it means keeping it.) */
export function resourceWithin(requested: string | undefined, granted: string | undefined): boolean {
  return requested === undefined || requested === granted;
}

export function outsideGrant(granted: string | undefined): InvalidTarget {
  return new InvalidTarget(
    granted === undefined
      ? "This authorization was approved for no particular resource; start a new one that names it."
      : `This authorization was approved for ${granted} only.`,
  );
}

export function checkResourceWithin(requested: string | undefined, granted: string | undefined): void {
  if (!resourceWithin(requested, granted)) throw outsideGrant(granted);
}

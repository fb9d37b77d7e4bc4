// Identifiers, per IndieAuth section 3: profile URLs (3.2), client identifiers (3.3) and
// canonicalisation (3.4). Parsing uses the WHATWG URL parser, which already lowercases the
// host, adds the "/" path and normalises numeric IPv4 forms such as 0x7f000001.

type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith("[") || IPV4.test(hostname);
}

/** The URL, or null where the parser refuses it (URL.parse is Node 22's). */
export function urlOf(raw: string, base?: string | URL): URL | null {
  try {
    return new URL(raw, base);
  } catch {
    return null;
  }
}

export function isLoopbackHost(hostname: string): boolean {
  return hostname === "127.0.0.1" || hostname === "[::1]" || hostname === "localhost";
}

/** Rejects "." and ".." segments as written, before the URL parser quietly resolves them. */
function hasDotSegment(raw: string): boolean {
  const afterScheme = raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "");
  const path = afterScheme.split(/[?#]/, 1)[0] ?? "";
  return path.split(/[/\\]/).some((segment) => {
    const s = segment.toLowerCase();
    return s === "." || s === ".." || s === "%2e" || s === ".%2e" || s === "%2e." || s === "%2e%2e";
  });
}

function parseHttpUrl(raw: string, what: string): UrlCheck {
  if (raw.length === 0) return { ok: false, reason: `${what} is empty` };
  if (raw.length > 2048) return { ok: false, reason: `${what} is too long` };
  if (/[\s\\]/.test(raw)) return { ok: false, reason: `${what} contains whitespace or a backslash` };
  const url = urlOf(raw);
  if (!url) return { ok: false, reason: `${what} is not an absolute URL` };
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, reason: `${what} must use https or http` };
  }
  if (url.hash !== "" || raw.includes("#")) return { ok: false, reason: `${what} must not contain a fragment` };
  if (url.username !== "" || url.password !== "" || /^[a-z]+:\/\/[^/?#]*@/i.test(raw)) {
    return { ok: false, reason: `${what} must not contain a username or password` };
  }
  if (hasDotSegment(raw)) return { ok: false, reason: `${what} must not contain "." or ".." path segments` };
  return { ok: true, url };
}

interface ProfileUrlOptions {
  /** Development only: accept localhost and ports, so `npm start` works on http://localhost:8888/. */
  allowLocalhost?: boolean;
}

/** Section 3.2: a user profile URL. */
export function parseProfileUrl(raw: string, options: ProfileUrlOptions = {}): UrlCheck {
  const parsed = parseHttpUrl(raw, "the profile URL");
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const local = options.allowLocalhost === true && url.hostname === "localhost";
  if (url.port !== "" && !local) return { ok: false, reason: "the profile URL must not contain a port" };
  if (isIpLiteral(url.hostname))
    return { ok: false, reason: "the profile URL's host must be a domain name, not an IP address" };
  if (url.hostname === "localhost" && !local) return { ok: false, reason: "the profile URL must not be localhost" };
  return parsed;
}

/** Section 3.3: a client identifier. Loopback addresses are the only IP literals allowed. */
export function parseClientId(raw: string): UrlCheck {
  const parsed = parseHttpUrl(raw, "client_id");
  if (!parsed.ok) return parsed;
  const { hostname } = parsed.url;
  if (isIpLiteral(hostname) && !isLoopbackHost(hostname)) {
    return { ok: false, reason: "client_id's host must be a domain name, 127.0.0.1 or [::1]" };
  }
  return parsed;
}

/** A redirect URI must be an absolute URL; custom schemes are allowed (native apps), but never
 * schemes that run code or carry content in the browser. */
export function parseRedirectUri(raw: string): UrlCheck {
  if (raw.length === 0) return { ok: false, reason: "redirect_uri is empty" };
  if (raw.length > 2048) return { ok: false, reason: "redirect_uri is too long" };
  if (/[\s\\]/.test(raw)) return { ok: false, reason: "redirect_uri contains whitespace or a backslash" };
  const url = urlOf(raw);
  if (!url) return { ok: false, reason: "redirect_uri is not an absolute URL" };
  if (["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"].includes(url.protocol)) {
    return { ok: false, reason: `redirect_uri must not use the ${url.protocol} scheme` };
  }
  if (url.hash !== "" || raw.includes("#")) return { ok: false, reason: "redirect_uri must not contain a fragment" };
  if (url.username !== "" || url.password !== "") {
    return { ok: false, reason: "redirect_uri must not contain a username or password" };
  }
  return { ok: true, url };
}

/** The longest URL a page shows from a request (the rest is cut, with an ellipsis). */
const MAX_SHOWN_URL = 80;

/** An http(s) URL for a person to read, or undefined: its parsed href, which is plain ASCII (a
 * punycode host, everything else percent-encoded, so no newline, control character or bidi
 * override survives), cut to 80 characters. For values a page shows but nobody vouches for. */
export function shownUrl(raw: string): string | undefined {
  const url = urlOf(raw);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) return undefined;
  const href = url.href;
  return href.length <= MAX_SHOWN_URL ? href : `${href.slice(0, MAX_SHOWN_URL - 1)}…`;
}

/** Section 3.4: the form used for storing and comparing (host lowercased, "/" path added). */
export function canonicalUrl(raw: string): string {
  return urlOf(raw)?.href ?? raw;
}

/** Same scheme, host and port (section 5.2, redirect URI check). */
export function sameOrigin(a: URL, b: URL): boolean {
  return a.protocol === b.protocol && a.hostname === b.hostname && a.port === b.port;
}

/** A native app's loopback redirect URI (RFC 8252 7.3, 8.3): http on 127.0.0.1, [::1] or
 * localhost. The app listens on whatever port the system gives it at the time. */
export function isLoopbackRedirect(url: URL): boolean {
  return url.protocol === "http:" && isLoopbackHost(url.hostname);
}

function withoutPort(url: URL): string {
  const copy = new URL(url.href);
  copy.port = "";
  return copy.href;
}

/** Whether a redirect URI used in a request is one the client published (or the owner approved
 * before): the same URI, compared in canonical form; for a loopback one, on any port (RFC 8252
 * 7.3: the server "MUST allow any port"; RFC 9700 2.1: exact matching "except for port numbers
 * in localhost redirection URIs of native apps"). Everything else stays exact, the host as
 * written included: 127.0.0.1, [::1] and localhost are three different hosts here (localhost
 * may resolve elsewhere, RFC 8252 8.3), and the path and query must be the same. */
export function redirectUriMatches(published: string, used: URL): boolean {
  const listed = urlOf(published);
  if (!listed) return false;
  if (listed.href === used.href) return true;
  return isLoopbackRedirect(listed) && isLoopbackRedirect(used) && withoutPort(listed) === withoutPort(used);
}

/** Whether a redirect URI is on the client_id's own origin (section 5.2), where it needs no
 * publishing. For a loopback client_id the port is not part of it: the app's listener port is
 * chosen when it starts, and is not its id's (RFC 8252 7.3). */
export function onClientOrigin(clientId: URL, redirectUri: URL): boolean {
  if (sameOrigin(clientId, redirectUri)) return true;
  return isLoopbackRedirect(clientId) && isLoopbackRedirect(redirectUri) && clientId.hostname === redirectUri.hostname;
}

/** Whether the redirect URI is on the client's origin and under the client_id's path (its path
 * as a directory: /~alice/app/ holds /~alice/app/callback, not /~mallory/collect). Anything
 * unparseable is not. The same host can serve other people's pages at other paths. */
export function isUnderClientPath(clientId: string, redirectUri: string): boolean {
  const [client, redirect] = [urlOf(clientId), urlOf(redirectUri)];
  if (!client || !redirect) return false;
  const directory = client.pathname.endsWith("/") ? client.pathname : `${client.pathname}/`;
  return (
    sameOrigin(client, redirect) && (redirect.pathname === client.pathname || redirect.pathname.startsWith(directory))
  );
}

// Where an app that registered itself (POST /register) receives its answer, as RFC 8252 7 names
// the three ways a native or web app can: a listener on this computer's loopback interface (7.3),
// a private-use URI scheme, an "app link" (7.1), or a web address (https, 7.2). Anything else
// (http to another host, javascript:, data:, a web or mail scheme that no app owns) is none.
import { isLoopbackRedirect } from "./urls.ts";

type RedirectKind = "loopback" | "app" | "web";

/** Schemes that are no app's own: the web's, mail's, the browser's. A redirect there is not an
 * app link, whatever its host. */
const NOT_PRIVATE_USE = new Set([
  "http",
  "https",
  "ftp",
  "ws",
  "wss",
  "file",
  "data",
  "javascript",
  "vbscript",
  "blob",
  "about",
  "filesystem",
  "view-source",
  "mailto",
  "tel",
  "sms",
  "news",
  "intent",
  "chrome",
  "chrome-extension",
  "moz-extension",
  "edge",
]);

/** What kind of redirect URI this is, or null when it is none of the three. A private-use
 * scheme counts only in reverse-domain form (RFC 8252 7.1): the scheme itself
 * (`com.example.app:/callback`), or an authority that names the app in domain form
 * (`cursor://anysphere.cursor-mcp/oauth/callback`), so that a bare `app:` that anything could
 * claim is refused. */
export function redirectKindOf(url: URL): RedirectKind | null {
  if (url.protocol === "https:") return "web";
  if (isLoopbackRedirect(url)) return "loopback";
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (NOT_PRIVATE_USE.has(scheme)) return null;
  return scheme.includes(".") || url.hostname.includes(".") ? "app" : null;
}

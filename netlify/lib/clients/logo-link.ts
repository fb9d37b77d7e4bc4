// The sign-in page's address for an app's logo: this server's own path, naming the logo's URL
// and an HMAC of it. Only URLs that GET /auth took from an app's document carry a valid one,
// so the logo path cannot be used to make this server fetch anything else.
import { createHmac } from "node:crypto";
import { constantTimeEqual } from "../crypto/secrets.ts";
import { CLIENT_LOGO_PATH } from "../pages/paths.ts";
import { urlOf } from "../core/urls.ts";

function signature(source: string, key: Uint8Array): string {
  return createHmac("sha256", key).update(`client-logo\0${source}`).digest("base64url");
}

/** The same-origin path the page loads the logo at `source` from. */
export function logoPath(source: string, key: Uint8Array): string {
  return `${CLIENT_LOGO_PATH}?${new URLSearchParams({ src: source, sig: signature(source, key) })}`;
}

/** The logo's URL a path names, or null when its signature is not this server's. */
export function logoSource(params: URLSearchParams, key: Uint8Array): URL | null {
  const source = params.get("src");
  const sig = params.get("sig");
  if (source === null || sig === null || !constantTimeEqual(sig, signature(source, key))) return null;
  const url = urlOf(source);
  return url?.protocol === "https:" || url?.protocol === "http:" ? url : null;
}

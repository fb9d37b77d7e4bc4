// The responses every endpoint sends: JSON, the plain pages functions render, and redirects,
// each with the security headers it needs.
import { renderMessagePage, type MessagePage } from "./message-page.ts";

const COMMON_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  // A window that opened one of these pages (a page, or a redirect on the way to the sign-in
  // page) loses its handle to it: no script elsewhere, even on the same origin, can read or
  // rewrite the page the owner types into. Harmless on answers that are no page.
  "Cross-Origin-Opener-Policy": "same-origin",
} as const;

/** The pages functions render: no script at all, no framing, nothing cached. */
const PAGE_SECURITY_HEADERS = {
  ...COMMON_HEADERS,
  "Content-Security-Policy":
    "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
} as const;

/** Answers carry tokens or say whether one is live: never cached (RFC 6749 5.1). */
const ANSWER_HEADERS = { ...COMMON_HEADERS, "Cache-Control": "no-store", Pragma: "no-cache" } as const;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...ANSWER_HEADERS, "Content-Type": "application/json", ...headers },
  });
}

/** The same answer form-encoded, for an older client that asks for nothing else (the token
 * endpoint's answers before IndieAuth moved to JSON). Values that are not strings (a profile,
 * a number) travel as their JSON text. */
export function formEncoded(
  body: Record<string, unknown>,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body))
    if (value !== undefined) form.set(key, typeof value === "string" ? value : JSON.stringify(value));
  return new Response(form.toString(), {
    status,
    headers: { ...ANSWER_HEADERS, "Content-Type": "application/x-www-form-urlencoded", ...headers },
  });
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

/** The response with these Set-Cookie values appended (one header each). */
export function withCookies(response: Response, setCookies: readonly string[]): Response {
  for (const cookie of setCookies) response.headers.append("Set-Cookie", cookie);
  return response;
}

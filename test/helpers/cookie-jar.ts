// What a browser keeps of the server's Set-Cookie answers and sends back, for one host: each
// cookie under its name and path (read with the `cookie` library's parseSetCookie), replaced or
// removed (Max-Age=0) as a browser does, and sent to a request's path only when its own path
// covers it (RFC 6265 5.1.4, "path-match"), longest path first. Domain-less cookies only: this
// server never sets a Domain. No vitest here.
import { parseSetCookie } from "cookie";

interface Kept {
  name: string;
  value: string;
  path: string;
  /** When it was set: a tie of paths sends the older first. */
  order: number;
}

/** RFC 6265 5.1.4: whether a cookie set for `cookiePath` is sent with a request to `requestPath`. */
export function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/";
}

/** RFC 6265 5.1.4: a Set-Cookie without Path gets the directory of the request's path. */
function defaultPath(requestPath: string): string {
  const last = requestPath.lastIndexOf("/");
  return last <= 0 ? "/" : requestPath.slice(0, last);
}

export class CookieJar {
  private cookies: Kept[] = [];
  private count = 0;

  /** Takes in every Set-Cookie of an answer to a request for `requestPath`. */
  receive(response: Response, requestPath: string): void {
    for (const header of response.headers.getSetCookie()) {
      const parsed = parseSetCookie(header);
      const path = parsed.path?.startsWith("/") ? parsed.path : defaultPath(requestPath);
      this.cookies = this.cookies.filter((c) => !(c.name === parsed.name && c.path === path));
      if (parsed.maxAge !== undefined && parsed.maxAge <= 0) continue;
      this.cookies.push({ name: parsed.name, value: parsed.value ?? "", path, order: this.count++ });
    }
  }

  /** The Cookie header a request to `requestPath` carries ("" when none). */
  header(requestPath: string): string {
    return this.cookies
      .filter((c) => pathMatches(requestPath, c.path))
      .sort((a, b) => b.path.length - a.path.length || a.order - b.order)
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  }

  /** The names and paths of what is kept. */
  list(): { name: string; path: string }[] {
    return this.cookies.map(({ name, path }) => ({ name, path }));
  }
}

// What the frame (endpoint.ts) checks of a route's contract, apart from its body (body.ts): who
// called before the handler runs, and where its answer sends the browser after. (The owner is
// found by endpoints/owner-caller.ts, so that functions without session routes never load sessions.)
import { AccessDenied } from "../errors.ts";
import type { Config } from "../platform/config.ts";
import type { ClientReply } from "../protocol/authorization-response.ts";
import { isSameOriginPost } from "./request.ts";

/** Who may call a route. `same-origin`: a post from this site's own pages (a GET changes
 * nothing and is not checked); `session`: that, and a live owner session, handed to the handler;
 * `reconfirmed`: that, and the password or a passkey given again in the same form. */
export type Caller = "anyone" | "same-origin" | "session" | "reconfirmed";

/** Where a route's answers may send the browser: nowhere, this site's own pages, or those and
 * the client's redirect URI once verified (ctx.replyTo). */
export type Redirects = "none" | "own-pages" | "client";

/** The owner behind a session route: the session's id; `setCookies`, the known device's cookies
 * a confirmation answers with (the frame adds them to the handler's answer). */
export interface Owner {
  sessionId: string;
  setCookies: readonly string[];
}

/** Who sent the request, as the platform reports it; and the platform's way to finish work
 * after the response has gone (Netlify's context.waitUntil), where it offers one. */
export interface Requester {
  ip: string;
  userAgent: string;
  waitUntil?: ((work: Promise<unknown>) => void) | undefined;
}

/** Refuses a post from another site to a route that admits this site's own pages only. */
export function checkOrigin(caller: Caller, crossSite: string | undefined, req: Request, config: Config): void {
  if (caller !== "anyone" && req.method === "POST" && !isSameOriginPost(req, config.baseUrl))
    throw new AccessDenied(crossSite ?? "This request is accepted from this site's own pages only.");
}

const withoutQuery = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`;

/** Null when the answer sends the browser only where the route declares; else what is wrong. */
export function strayRedirect(
  response: Response,
  redirects: Redirects,
  config: Config,
  reply: ClientReply | undefined,
): string | null {
  const location = response.headers.get("location");
  if (location === null) return null;
  if (redirects === "none") return `a Location (${location}) on a route that redirects nowhere`;
  let target: URL;
  try {
    target = new URL(location, config.baseUrl);
  } catch {
    return `an unreadable Location (${location})`;
  }
  if (target.origin === new URL(config.baseUrl).origin && target.protocol.startsWith("http")) return null;
  if (redirects === "client" && reply && withoutQuery(target) === withoutQuery(new URL(reply.redirectUri))) return null;
  return `a Location (${location}) that is neither this site's page nor the verified redirect URI`;
}

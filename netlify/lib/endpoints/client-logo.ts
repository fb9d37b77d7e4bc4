// GET /auth/logo: an app's logo, served from this origin so that the sign-in page makes no
// request to the app's host (docs/endpoints.md, "GET /auth/logo"): the address is signed
// (clients/logo-link.ts), the logo fetched through the address guard and kept (logo-cache.ts).
import { readLogo, type LogoFetcher } from "../clients/client-logo.ts";
import { cachedLogo } from "../clients/logo-cache.ts";
import { logoSource } from "../clients/logo-link.ts";
import { NotFound } from "../errors.ts";
import type { RequestContext } from "../http/endpoint.ts";

/** Headers that keep the image an image: its type from the allow-list only, never sniffed,
 * never a document that could run or load anything, readable by this origin only. */
const IMAGE_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "Cross-Origin-Resource-Policy": "same-origin",
  // The address names the logo's URL and is signed: a day in the browser's own cache.
  "Cache-Control": "private, max-age=86400",
} as const;

/** Said of every logo that is not shown, whatever the reason: the reason may name what a host
 * resolves to or why a connection failed, which is nobody's business who can open this path. */
export const LOGO_NOT_SHOWN = "The app's logo is not shown.";

/** A logo read now; why one is refused goes to the function's log (the owner's), and is kept
 * with the refusal in the store (clients/logo-cache.ts), never answered. */
async function readAndLog(source: URL, fetcher: LogoFetcher): ReturnType<typeof readLogo> {
  const logo = await readLogo(source, fetcher);
  if (!logo.ok) console.warn(`app logo ${source.href} not shown: ${logo.reason}`);
  return logo;
}

export async function serveClientLogo(ctx: RequestContext<never, "fetchLogo">): Promise<Response> {
  const source = logoSource(ctx.url.searchParams, ctx.config.keys.logo);
  if (!source) throw new NotFound("There is no such logo here.");
  const logo = await cachedLogo(ctx.rt.store, source.href, ctx.rt.now(), () => readAndLog(source, ctx.rt.fetchLogo));
  if (!logo.ok) throw new NotFound(LOGO_NOT_SHOWN);
  return new Response(new Blob([new Uint8Array(logo.bytes)]), {
    status: 200,
    headers: { "Content-Type": logo.type, "Content-Length": String(logo.bytes.length), ...IMAGE_HEADERS },
  });
}

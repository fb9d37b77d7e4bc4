// What the sign-in page and the owner's console show of an app: its own claims, all optional
// and never trusted (shown as text only), and what the server found about it.
import { isLoopbackHost } from "../protocol/urls.ts";

export interface ClientDisplay {
  name?: string;
  logoUri?: string;
  /** The app's home page, when it names one. */
  uri?: string;
  /** Its metadata document lists only loopback redirect URIs (127.0.0.1, [::1], localhost): a
   * program on a computer, which any other program there could stand in for. The sign-in page
   * warns (MCP authorization, "Client ID Metadata Documents": SHOULD). Set by the server only. */
  loopbackOnly?: true;
}

/** What discovery found that the display is made from. */
type Discovered = ClientDisplay & { metadataDocument?: true; redirectUris?: readonly string[] };

function isLoopbackUri(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === "http:" && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** Only the fields shown, and only those that are set. */
export function clientDisplay(from: Discovered): ClientDisplay {
  const display: ClientDisplay = {};
  if (from.name) display.name = from.name;
  if (from.logoUri) display.logoUri = from.logoUri;
  if (from.uri) display.uri = from.uri;
  const redirects = from.redirectUris ?? [];
  if (from.metadataDocument === true && redirects.length > 0 && redirects.every(isLoopbackUri)) display.loopbackOnly = true;
  return display;
}

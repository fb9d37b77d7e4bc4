// Building the redirect back to the client (spec 5.2.1, RFC 9207, RFC 6749 4.1.2.1):
// the redirect URI keeps its own query, and each of our parameters appears exactly once.

export function redirectToClient(
  redirectUri: string,
  params: Record<string, string | undefined>,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) {
    url.searchParams.delete(name);
    if (value !== undefined) url.searchParams.append(name, value);
  }
  url.searchParams.delete("iss");
  url.searchParams.append("iss", issuer);
  return url.href;
}

/** A verified redirect URI, and what goes back with every answer sent there (RFC 6749 4.1.2.1). */
export interface ClientReply {
  redirectUri: string;
  state?: string;
  /** Whether errors may be redirected there without the person choosing to go
   * (endpoints/error-redirects.ts); else the page that shows them links there. */
  trusted: boolean;
}

// What can go wrong with a fetch behind the address guard (safe-fetch.ts, probe.ts), as classes
// the callers tell apart: refused by this server's own rules, failed, or too slow. And what of
// it may be told to whoever made this server fetch: a status, or that it was too slow; never
// an address, a DNS answer or a system error ("localhost resolves to 127.0.0.1", "connect
// ECONNREFUSED"), which would make this server a probe of the names and ports it can reach.

/** We chose not to fetch: address not allowed, bad scheme, too many redirects, too large. */
export class FetchRefused extends Error {
  override name = "FetchRefused";
}

/** Refused for where it would connect: a name that resolves to, or a literal that is, an
 * address the policy does not allow. Told to nobody: it says what a name resolves to. */
export class AddressRefused extends FetchRefused {
  override name = "AddressRefused";
}

/** The fetch went wrong: network error, timeout, or a status other than 2xx (`status`). */
export class FetchFailed extends Error {
  override name = "FetchFailed";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/** Too slow: no answer's headers within their budget, or not all of it within the whole one. */
export class FetchTimedOut extends FetchFailed {
  override name = "FetchTimedOut";
}

/** Why a fetch failed, in words that may be shown to anyone. */
export function shareableReason(error: unknown): string {
  if (error instanceof FetchTimedOut) return "it did not answer in time";
  if (error instanceof FetchFailed && error.status !== undefined) return `it answered ${error.status}`;
  return "it could not be reached";
}

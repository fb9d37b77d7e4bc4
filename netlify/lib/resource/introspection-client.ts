// Other-site mode: a resource server on another Netlify site asks this server's POST /introspect,
// authorised by the resource-server credential INTROSPECTION_TOKEN (RFC 7662 2.1).
// Answers are kept per function instance for at most a minute and never past the token's
// expiry, keyed by the token's hash (the token itself is never kept): a revoked token is
// refused at most that minute later. Tokens of the wrong shape are refused without asking.
import { setBounded } from "../core/bounded-map.ts";
import { MINUTE } from "../core/time.ts";
import { secretHash } from "../crypto/secrets.ts";
import { shapeReason } from "../protocol/verification.ts";
import { tokenFromIntrospection } from "./introspection-answer.ts";
import { ResourceSetupError, TokenCheckUnavailable, type TokenVerification } from "./types.ts";

/** The longest an answer is reused (the bound on how long a revocation can go unnoticed). */
const MAX_CACHE_MS = MINUTE;
const MAX_ENTRIES = 1000;
const TIMEOUT_MS = 4000;

/** A copy, so that a caller changing its answer cannot change the cached one. */
function copy(answer: TokenVerification): TokenVerification {
  return answer.active && Array.isArray(answer.aud) ? { ...answer, aud: [...answer.aud] } : { ...answer };
}

/** Checks tokens at `endpoint` with the resource-server credential; `now`, the clock. */
export function introspectionVerifier(
  endpoint: string,
  credential: string,
  now: () => number,
): (token: string) => Promise<TokenVerification> {
  const cache = new Map<string, { answer: TokenVerification; until: number }>();
  const inFlight = new Map<string, Promise<TokenVerification>>();

  async function ask(token: string, key: string): Promise<TokenVerification> {
    // The answer tells the token's state at some moment after this one: counting the minute
    // from here bounds how stale a reused answer can be.
    const asked = now();
    let body: unknown;
    try {
      const response = await fetch(endpoint, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${credential}`,
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
        },
        body: new URLSearchParams({ token }),
        // A redirect would carry the token and the credential somewhere else.
        redirect: "error",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      if (response.status === 401 || response.status === 403) {
        throw new ResourceSetupError(
          "INTROSPECTION_TOKEN",
          `${endpoint} refused the credential: set INTROSPECTION_TOKEN to the same value as on the IndieAuth server's site`,
        );
      }
      if (!response.ok) throw new TokenCheckUnavailable(`${endpoint} answered ${response.status}`);
      body = await response.json();
    } catch (error) {
      throw error instanceof TokenCheckUnavailable
        ? error
        : new TokenCheckUnavailable(`${endpoint} did not answer`, error);
    }
    const answer = tokenFromIntrospection(body);
    if (!answer) throw new TokenCheckUnavailable(`${endpoint} did not answer as RFC 7662 says`);
    const until = Math.min(asked + MAX_CACHE_MS, answer.active ? answer.exp * 1000 : Number.POSITIVE_INFINITY);
    setBounded(cache, key, { answer, until }, MAX_ENTRIES);
    return answer;
  }

  return async (token) => {
    const wrongShape = shapeReason(token);
    if (wrongShape) return { active: false, reason: wrongShape };
    const key = secretHash(token);
    const cached = cache.get(key);
    if (cached && now() < cached.until) return copy(cached.answer);
    cache.delete(key);
    // Requests carrying the same token at once share one question.
    let asking = inFlight.get(key);
    if (!asking) {
      asking = ask(token, key).finally(() => inFlight.delete(key));
      inFlight.set(key, asking);
    }
    return copy(await asking);
  };
}

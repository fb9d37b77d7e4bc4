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

interface IntrospectionClientOptions {
  endpoint: string;
  credential: string;
  /** The clock (tests move it). */
  now?: () => number;
  /** How long an answer is reused, at most MAX_CACHE_MS. */
  cacheMs?: number;
  timeoutMs?: number;
}

interface Cached {
  answer: TokenVerification;
  /** Reused while the clock is before this. */
  until: number;
}

/** A copy, so that a caller changing its answer cannot change the cached one. */
function copy(answer: TokenVerification): TokenVerification {
  return answer.active && Array.isArray(answer.aud) ? { ...answer, aud: [...answer.aud] } : { ...answer };
}

export class IntrospectionClient {
  readonly #cache = new Map<string, Cached>();
  readonly #inFlight = new Map<string, Promise<TokenVerification>>();
  readonly #now: () => number;
  readonly #cacheMs: number;

  constructor(private readonly options: IntrospectionClientOptions) {
    this.#now = options.now ?? Date.now;
    this.#cacheMs = Math.min(options.cacheMs ?? MAX_CACHE_MS, MAX_CACHE_MS);
  }

  async verify(token: string): Promise<TokenVerification> {
    const wrongShape = shapeReason(token);
    if (wrongShape) return { active: false, reason: wrongShape };
    const key = secretHash(token);
    const cached = this.#cache.get(key);
    if (cached && this.#now() < cached.until) return copy(cached.answer);
    this.#cache.delete(key);
    // Requests carrying the same token at once share one question.
    let asking = this.#inFlight.get(key);
    if (!asking) {
      asking = this.#ask(token, key).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, asking);
    }
    return copy(await asking);
  }

  async #ask(token: string, key: string): Promise<TokenVerification> {
    // The answer tells the token's state at some moment after this one: counting the minute
    // from here bounds how stale a reused answer can be.
    const asked = this.#now();
    const { endpoint, credential } = this.options;
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
        signal: AbortSignal.timeout(this.options.timeoutMs ?? TIMEOUT_MS),
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
    const until = Math.min(asked + this.#cacheMs, answer.active ? answer.exp * 1000 : Number.POSITIVE_INFINITY);
    setBounded(this.#cache, key, { answer, until }, MAX_ENTRIES);
    return answer;
  }
}

// Client authentication with a signed assertion (RFC 7521 4.2, RFC 7523 2.2 and 3), required of
// a client whose metadata document declares private_key_jwt (CIMD draft), and refused from one
// that declared none; its jti is remembered until it expires, so it is used once. The claims
// checked: docs/security.md. jose is loaded only when an assertion is checked.
import type { JWTPayload } from "jose";
import { ASSERTION_ALGORITHMS, type KeyAuthentication } from "../core/client-shape.ts";
import { clientKeySet, ClientKeysUnavailable } from "../clients/jwks.ts";
import type { Fields } from "../core/fields.ts";
import { InvalidClient } from "../errors.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyFetcher } from "../platform/runtime.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { loadOnce } from "../core/load-once.ts";
import { CLOCK_SKEW_S, MAX_LIFETIME_S } from "../core/policy.ts";

const joseForAssertions = loadOnce(() => Promise.all([import("jose/jwt/verify"), import("jose/jwks/local")]));

const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** invalid_client for a client that authenticates (or should) in the body: RFC 6749 5.2 asks
 * for WWW-Authenticate only after an Authorization header, and a Basic challenge would send
 * such a client (openid-client, for one) after a scheme it does not use. */
export class AssertionRefused extends InvalidClient {
  constructor(description: string, challenge = false) {
    super(description, challenge);
  }
}

const MAX_ASSERTION_LENGTH = 8192;

export interface AssertionContext {
  store: KeyValueStore;
  now: number;
  /** Who the assertion may be addressed to: this server's token endpoint URL and its issuer. */
  audiences: string[];
  /** Fetches a jwks_uri; by default through the address guard. */
  fetcher?: KeyFetcher | undefined;
  /** The request carried Basic credentials: a refusal then challenges (RFC 6749 5.2). */
  basicSent?: boolean;
}

/** The fields a client authenticates with (RFC 7523 2.2). */
export type AssertionFields = Fields<"client_assertion_type" | "client_assertion">;

/** The one value of a form field, or null; a field given twice is refused. */
function single(form: AssertionFields, name: "client_assertion_type" | "client_assertion"): string | null {
  const values = form.getAll(name).filter((value) => value !== "");
  if (values.length > 1) throw new AssertionRefused(`${name} is given more than once.`);
  return values[0] ?? null;
}

type Verified = { payload: JWTPayload } | { problem: string; unknownKey?: true };

/** Why jose refused the assertion, in words for the client's developer. */
function explain(error: unknown): Verified {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  if (code === "ERR_JWKS_NO_MATCHING_KEY")
    return { problem: "no key the client publishes matches the assertion's kid and alg", unknownKey: true };
  if (code === "ERR_JWKS_MULTIPLE_MATCHING_KEYS")
    return { problem: "several published keys match; give the assertion a kid" };
  if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED")
    return { problem: "its signature does not verify with the client's published key", unknownKey: true };
  if (code === "ERR_JWT_EXPIRED") return { problem: "it has expired" };
  if (code === "ERR_JOSE_ALG_NOT_ALLOWED")
    return {
      problem: `it is signed with an algorithm not accepted here (accepted: ${ASSERTION_ALGORITHMS.join(", ")})`,
    };
  if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && claim === "aud")
    return { problem: "its aud is neither this server's token endpoint nor its issuer" };
  if (code === "ERR_JWT_CLAIM_VALIDATION_FAILED" && typeof claim === "string")
    return {
      problem: `its ${claim} claim is missing or wrong (iss and sub must be the client_id; exp and jti are required)`,
    };
  return { problem: "it is not a well-formed signed JWT" };
}

/** Verifies the assertion with the client's keys, fetching them again once when none matches
 * (a key rotated since they were kept). */
async function verifyAssertion(
  assertion: string,
  clientId: string,
  declared: KeyAuthentication,
  ctx: AssertionContext,
): Promise<JWTPayload> {
  const algorithms = declared.alg !== undefined ? [declared.alg] : [...ASSERTION_ALGORITHMS];
  const keyOptions = { store: ctx.store, now: ctx.now, fetcher: ctx.fetcher };
  const verify = async (fresh: boolean): Promise<Verified> => {
    const keys = await clientKeySet(declared.keys, { ...keyOptions, fresh });
    const [{ jwtVerify }, { createLocalJWKSet }] = await joseForAssertions();
    try {
      const { payload } = await jwtVerify(assertion, createLocalJWKSet(keys), {
        algorithms,
        issuer: clientId,
        subject: clientId,
        audience: ctx.audiences,
        currentDate: new Date(ctx.now),
        clockTolerance: CLOCK_SKEW_S,
        requiredClaims: ["exp", "jti", "iss", "sub", "aud"],
      });
      return { payload };
    } catch (error) {
      return explain(error);
    }
  };
  try {
    let verified = await verify(false);
    if ("problem" in verified && verified.unknownKey === true && "jwksUri" in declared.keys)
      verified = await verify(true);
    if ("problem" in verified) throw new AssertionRefused(`The client_assertion is refused: ${verified.problem}.`);
    return verified.payload;
  } catch (error) {
    if (error instanceof ClientKeysUnavailable)
      throw new AssertionRefused(`The client's keys cannot be had: ${error.message}.`);
    throw error;
  }
}

/** Remembers the assertion's jti until it expires; false if it was there already. */
async function firstUse(clientId: string, payload: JWTPayload, ctx: AssertionContext): Promise<boolean> {
  const expiresAt = (payload.exp! + CLOCK_SKEW_S) * 1000;
  return ctx.store.setIfNew(RECORDS.usedAssertion.key(clientId, String(payload.jti)), { usedAt: ctx.now, expiresAt });
}

/** Checks how the client authenticates at the token endpoint: `declared` is what its metadata
 * document said when the owner approved it (carried by the code, then the grant). Throws
 * InvalidClient (401) when it does not authenticate as declared. */
export async function authenticateClient(
  form: AssertionFields,
  clientId: string,
  declared: KeyAuthentication | undefined,
  ctx: AssertionContext,
): Promise<void> {
  try {
    const type = single(form, "client_assertion_type");
    const assertion = single(form, "client_assertion");
    if (declared === undefined) {
      if (type === null && assertion === null) return;
      throw new AssertionRefused(
        "This client's metadata document declares no private_key_jwt, so it authenticates with none: send no client_assertion.",
      );
    }
    if (assertion === null) {
      throw new AssertionRefused(
        "This client's metadata document declares token_endpoint_auth_method private_key_jwt: send a client_assertion signed with its key (RFC 7523).",
      );
    }
    if (type !== JWT_BEARER_ASSERTION)
      throw new AssertionRefused(`client_assertion_type must be ${JWT_BEARER_ASSERTION}.`);
    if (assertion.length > MAX_ASSERTION_LENGTH)
      throw new AssertionRefused("The client_assertion is longer than any assertion this server reads.");
    const payload = await verifyAssertion(assertion, clientId, declared, ctx);
    if (typeof payload.jti !== "string" || payload.jti === "" || payload.jti.length > 512)
      throw new AssertionRefused("The client_assertion's jti must be a non-empty string.");
    if (payload.exp! - Math.floor(ctx.now / 1000) > MAX_LIFETIME_S + CLOCK_SKEW_S) {
      throw new AssertionRefused(`The client_assertion expires too far ahead: at most ${MAX_LIFETIME_S / 60} minutes.`);
    }
    if (!(await firstUse(clientId, payload, ctx)))
      throw new AssertionRefused(
        "This client_assertion was used before: sign a new one, with a new jti, for each request.",
      );
  } catch (error) {
    if (error instanceof AssertionRefused && ctx.basicSent === true)
      throw new AssertionRefused(error.description, true);
    throw error;
  }
}

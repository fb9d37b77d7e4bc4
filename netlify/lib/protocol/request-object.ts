// The validated authorization request travels from GET /auth, through the static sign-in
// page, to the approve step as a signed JWT of its own type: the page can show it, but any
// change to it is noticed, and it cannot be mistaken for any other token this server makes.
// It also carries what the page offers (Approve alone, the password, a passkey), so that
// nothing appended to the page's address can change the offer.
import { randomBytes } from "node:crypto";
import { readKeyAuthentication } from "../clients/client-keys.ts";
import { signTyped, verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";
import { readRequestShape, REQUEST_OBJECT_TYPE, type RequestProblem } from "../pages/request-object-shape.ts";
import { readOffer, type AuthorizationRequest, type SignInOffer } from "../pages/sign-in-fragment.ts";
import { signedPrompt } from "./prompt.ts";
import { REQUEST_OBJECT_TTL_SECONDS } from "../core/policy.ts";

/** The longest signed request the approve step reads (it travels in the sign-in page's URL
 * fragment and back in its form). GET /auth refuses to make a longer one. */
const MAX_REQUEST_OBJECT_LENGTH = 32_768;
/** Room kept in every request GET /auth makes, for the longest offer it may be signed again with. */
const OFFER_ROOM = 160;

/** Whether GET /auth must refuse this signed request: the approve step could not read it, or
 * could not sign it again with another offer. */
export function requestTooLarge(token: string): boolean {
  return token.length > MAX_REQUEST_OBJECT_LENGTH - OFFER_ROOM;
}

type RequestClaims = AuthorizationRequest & { offer: SignInOffer; rid: string };

/** A verified request object: the request, the page's offer, and when it expires (ms). */
export interface SignedRequest {
  request: AuthorizationRequest;
  offer: SignInOffer;
  expiresAt: number;
  /** Drawn when GET /auth signs it, kept when it is signed again: two requests alike in every
   * parameter (a client that sends one twice) are two requests. */
  rid: string;
}

interface SignOptions {
  /** What the page offers; without one, the page asks for the password. */
  offer?: SignInOffer;
  /** A request signed again (with a new offer) keeps its first expiry: it is never extended. */
  expiresAt?: number;
  /** A request signed again keeps its id; without one, a new one is drawn. */
  rid?: string;
}

function requestObjectKind(key: Uint8Array, issuer: string): JwtKind {
  return { key, issuer, typ: REQUEST_OBJECT_TYPE, audience: `${issuer}auth/approve` };
}

export function signRequest(
  request: AuthorizationRequest,
  key: Uint8Array,
  issuer: string,
  now: number,
  options: SignOptions = {},
): Promise<string> {
  const latest = now + REQUEST_OBJECT_TTL_SECONDS * 1000;
  const rid = options.rid ?? randomBytes(12).toString("base64url");
  const claims = options.offer ? { ...request, offer: options.offer, rid } : { ...request, rid };
  return signTyped(claims, requestObjectKind(key, issuer), now, Math.min(options.expiresAt ?? latest, latest));
}

/** What names one signed sign-in request through its signings again with another offer (which
 * keep its expiry and id): the client's own request (its PKCE challenge and state), that expiry
 * and the id GET /auth drew.
 * Approving it twice issues one code (protocol/codes.ts). */
export function requestId(signed: SignedRequest): string {
  const { clientId, redirectUri, state, codeChallenge } = signed.request;
  return JSON.stringify([clientId, redirectUri, state, codeChallenge, signed.expiresAt, signed.rid]);
}

/** The request, or null when the signature, type, audience or expiry is wrong. */
export async function verifyRequest(
  token: string,
  key: Uint8Array,
  issuer: string,
  now: number,
): Promise<SignedRequest | null> {
  const payload = await verifyTyped<RequestClaims>(
    token,
    requestObjectKind(key, issuer),
    now,
    MAX_REQUEST_OBJECT_LENGTH,
  );
  if (!payload || typeof payload.exp !== "number") return null;
  const { clientId, redirectUri, state, codeChallenge, scopes, clientRead, defaultScopes } = payload;
  if (
    typeof clientId !== "string" ||
    typeof redirectUri !== "string" ||
    typeof state !== "string" ||
    typeof codeChallenge !== "string" ||
    !Array.isArray(scopes) ||
    typeof payload.rid !== "string"
  ) {
    return null;
  }
  const client = payload.client ?? {};
  const request: AuthorizationRequest = { clientId, redirectUri, state, codeChallenge, scopes, client };
  if (typeof payload.meMismatch === "string") request.meMismatch = payload.meMismatch;
  if (typeof payload.resource === "string") request.resource = payload.resource;
  if (typeof payload.unshownLogoUri === "string") request.unshownLogoUri = payload.unshownLogoUri;
  if (clientRead === "page" || clientRead === "metadata-document") request.clientRead = clientRead;
  const declared = readKeyAuthentication(payload.authentication);
  if (declared) request.authentication = declared;
  if (payload.documentUnread === true) request.documentUnread = true;
  if (Array.isArray(defaultScopes))
    request.defaultScopes = defaultScopes.filter((s): s is string => typeof s === "string");
  const prompt = signedPrompt(payload.prompt);
  if (prompt.length > 0) request.prompt = prompt;
  return { request, offer: readOffer(payload.offer), expiresAt: payload.exp * 1000, rid: payload.rid };
}

/** A request the approve step can use, or why not (with, for one this server signed that has
 * expired, the app it came from: a genuine address to send the person back to). */
type RequestCheck = { ok: true; signed: SignedRequest } | { ok: false; problem: RequestProblem; clientId?: string };

/** The request, or what is wrong with it: "expired" only for a request this server signed (its
 * signature holds at a moment before its expiry), so that a changed one is never called old. */
export async function checkRequest(token: string, key: Uint8Array, issuer: string, now: number): Promise<RequestCheck> {
  const signed = await verifyRequest(token, key, issuer, now);
  if (signed) return { ok: true, signed };
  const shape = readRequestShape(token);
  if (!shape) return { ok: false, problem: "incomplete" };
  const genuine = shape.expiresAt <= now ? await verifyRequest(token, key, issuer, shape.expiresAt - 1000) : null;
  return genuine
    ? { ok: false, problem: "expired", clientId: genuine.request.clientId }
    : { ok: false, problem: "altered" };
}

// The authorization request's own parameters (spec 5.2, RFC 7636, RFC 8707), each checked in turn:
// no network, so a request that fails here is known before the client's page is fetched.
import type { ClientInfo } from "../core/client-shape.ts";
import { canonicalUrl, parseProfileUrl, shownUrl } from "../core/urls.ts";
import { InvalidRequest, InvalidScope, UnsupportedResponseType } from "../errors.ts";
import { isPkceValue } from "./pkce.ts";
import { parsePrompt } from "./prompt.ts";
import type { AuthorizationRequest } from "../pages/sign-in-fragment.ts";
import { requestedResource } from "./resource.ts";
import { accessScopes, parseScope } from "./scopes.ts";

const MAX_STATE_LENGTH = 2048;

/** No parameter twice (a second value could be read differently by another party).
 * `resource` may repeat in RFC 8707: checkResource refuses that with its own error. */
function checkNoDuplicateParameters(params: URLSearchParams): void {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (name === "resource") continue;
    if (seen.has(name)) throw new InvalidRequest(`The parameter ${name} is given more than once.`);
    seen.add(name);
  }
}

/** response_type=code (the legacy `id` is read as `code`). */
function checkResponseType(params: URLSearchParams): void {
  const responseType = params.get("response_type");
  if (responseType === null || responseType === "")
    throw new InvalidRequest("response_type is required and must be code.");
  if (responseType !== "code" && responseType !== "id")
    throw new UnsupportedResponseType(`response_type ${responseType} is not supported; use code.`);
}

/** state is required and comes back unchanged. */
function checkState(params: URLSearchParams): string {
  const state = params.get("state");
  if (state === null || state === "") throw new InvalidRequest("state is required.");
  if (state.length > MAX_STATE_LENGTH) throw new InvalidRequest(`state is longer than ${MAX_STATE_LENGTH} characters.`);
  return state;
}

/** PKCE with S256 is required; plain is refused. */
function checkPkce(params: URLSearchParams): string {
  const challenge = params.get("code_challenge");
  const method = params.get("code_challenge_method");
  if (challenge === null || challenge === "") throw new InvalidRequest("code_challenge is required (PKCE with S256).");
  if (!isPkceValue(challenge))
    throw new InvalidRequest("code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.");
  if (method === null || method === "") throw new InvalidRequest("code_challenge_method is required and must be S256.");
  if (method !== "S256") throw new InvalidRequest(`code_challenge_method ${method} is not supported; use S256.`);
  return challenge;
}

function checkScope(params: URLSearchParams): string[] {
  const parsed = parseScope(params.get("scope"));
  if (!parsed.ok) throw new InvalidScope(parsed.reason);
  return parsed.scopes;
}

/** `me` is only a hint. When it names someone else, the page says so and the sign-in
 * continues as the owner (spec 5.2). Only a valid profile URL is shown, and only as a short
 * parsed URL: the raw text could carry lines of its own ("VERIFIED APP, press Approve"). */
function checkMe(params: URLSearchParams, ownerMe: string): string | undefined {
  const me = params.get("me");
  if (me === null || me === "") return undefined;
  const parsed = parseProfileUrl(me.includes("://") ? me : `https://${me}`, { allowLocalhost: true });
  if (!parsed.ok) return undefined;
  const canonical = parsed.url.href;
  if (canonical === ownerMe) return undefined;
  // Also accept the http/https twin of the owner's URL without a warning.
  if (canonicalUrl(canonical.replace(/^http:/, "https:")) === ownerMe.replace(/^http:/, "https:")) return undefined;
  return shownUrl(canonical);
}

/** The resource the token is to be for (RFC 8707), if any. A request for a resource
 * that names no scope granting access there gets the resource's own default (withDefaultScopes); without
 * a resource, `offline_access` alone would end in a token good for nothing, and is refused. */
function checkResource(params: URLSearchParams, scopes: readonly string[]): string | undefined {
  const resource = requestedResource(params);
  if (resource === undefined && scopes.length > 0 && accessScopes(scopes).length === 0) {
    throw new InvalidScope(
      "offline_access alone grants nothing: ask for the scopes the token is for too, or name the resource (RFC 8707) whose metadata lists them.",
    );
  }
  return resource;
}

/** A client with a ceiling on its scopes (this deployment's self-test) asks for no more. */
export function checkScopeCeiling(scopes: readonly string[], client: ClientInfo | null): void {
  const ceiling = client?.own?.scopes;
  const beyond = ceiling ? scopes.filter((scope) => !ceiling.includes(scope)) : [];
  if (beyond.length > 0)
    throw new InvalidScope(`The self-test may ask for ${ceiling!.join(" ")} at most, not ${beyond.join(" ")}.`);
}

export type CheckedParameters = Pick<
  AuthorizationRequest,
  "state" | "codeChallenge" | "scopes" | "meMismatch" | "resource" | "defaultScopes" | "prompt"
>;

/** The parameters: no network, so a failure is known before the client's page is fetched. */
export function checkParameters(params: URLSearchParams, ownerMe: string): CheckedParameters {
  checkNoDuplicateParameters(params);
  checkResponseType(params);
  const checked: CheckedParameters = {
    state: checkState(params),
    codeChallenge: checkPkce(params),
    scopes: checkScope(params),
  };
  const meMismatch = checkMe(params, ownerMe);
  if (meMismatch !== undefined) checked.meMismatch = meMismatch;
  const resource = checkResource(params, checked.scopes);
  if (resource !== undefined) checked.resource = resource;
  const prompt = parsePrompt(params.get("prompt"));
  if (prompt.length > 0) checked.prompt = prompt;
  return checked;
}

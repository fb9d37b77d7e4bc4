// Checking GET /auth: its steps (AUTHORIZATION_REQUEST_STEPS, at the end), each tagged by what
// is known when it runs (trust-steps.ts). endpoints/authorize.ts adds its own after them.
import { clientDisplay, clientReadOf, type ClientInfo } from "../core/client-shape.ts";
import { refusedClient } from "../clients/client-info.ts";
import { AnsweredError, InvalidRequest, InvalidScope, UnsupportedResponseType, UntrustedRedirect } from "../errors.ts";
import { isPkceValue } from "./pkce.ts";
import type { AuthorizationRequest } from "./request-object.ts";
import { requestedResource } from "./resource.ts";
import { parsePrompt } from "./prompt.ts";
import { accessScopes, parseScope } from "./scopes.ts";
import { canonicalUrl, parseClientId, parseProfileUrl, parseRedirectUri, sameOrigin, shownUrl } from "../core/urls.ts";
import type { ClientReply } from "./authorization-response.ts";
import { checkRedirectUriAllowed, type TrustedTarget } from "./redirect-allowed.ts";
import { runSteps, type Step } from "./trust-steps.ts";

const MAX_STATE_LENGTH = 2048;

/** client_id and redirect_uri are well-formed URLs (spec 3.3), each given once. */
function checkClientIdAndRedirectUri(params: URLSearchParams): TrustedTarget {
  for (const name of ["client_id", "redirect_uri"]) {
    const count = params.getAll(name).length;
    if (count === 0) throw new UntrustedRedirect("The app's request is incomplete", `The sign-in link has no ${name}. Go back to the app and try again.`);
    if (count > 1) throw new UntrustedRedirect("The app's request is malformed", `The sign-in link gives ${name} more than once.`);
  }
  const clientId = parseClientId(params.get("client_id")!);
  if (!clientId.ok) throw new UntrustedRedirect("The app's identity is not valid", `The app's client_id cannot be used: ${clientId.reason}.`);
  const redirectUri = parseRedirectUri(params.get("redirect_uri")!);
  if (!redirectUri.ok) throw new UntrustedRedirect("The app's return address is not valid", `The app's redirect_uri cannot be used: ${redirectUri.reason}.`);
  return { clientId: clientId.url, redirectUri: redirectUri.url, rawClientId: params.get("client_id")! };
}

/** What the client publishes (spec 4.2). A Client ID Metadata Document speaks only for
 * the client_id it names exactly as the request does (simple string comparison, CIMD draft 3):
 * for a request that spells it otherwise (https://App.example/c for https://app.example/c),
 * the document is refused. */
async function discoverClient(target: TrustedTarget, input: PipelineInput): Promise<ClientInfo> {
  const client = await input.discover(target.clientId);
  // CIMD draft: the method a document declares is required. One that cannot be honoured is not
  // waved through as a public client on the strength of a redirect URI on its own origin.
  if (client.authenticationRefused) {
    throw new UntrustedRedirect("The app's metadata document cannot be used", `The app's metadata document was not used: ${client.refused}. It says how the app proves itself to this server, so the sign-in cannot go on without it.`);
  }
  // CIMD draft 4, 5.1: a document that names another client_id (or none) may be a copy of another
  // app's; the sign-in stops, rather than go on as an app that publishes nothing.
  if (client.identityRefused) {
    throw new UntrustedRedirect("The app's metadata document names another app", `The app's metadata document was not used: ${client.refused}. A document must name the very address it is published at (its client_id), or it could be a copy of another app's, so the sign-in cannot go on. The app's developer can fix the document's client_id.`);
  }
  if (client.metadataDocument && target.rawClientId !== client.clientId) {
    // The code is still for the client_id the document names (URLs are compared canonically
    // at redemption): it carries what the document declares, so that a spelling never makes
    // the client weaker than its document.
    const refused = refusedClient(client.clientId, `the request's client_id is not spelled exactly as the document's (${client.clientId})`);
    return client.authentication ? { ...refused, authentication: client.authentication } : refused;
  }
  return client;
}

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
  if (responseType === null || responseType === "") throw new InvalidRequest("response_type is required and must be code.");
  if (responseType !== "code" && responseType !== "id") throw new UnsupportedResponseType(`response_type ${responseType} is not supported; use code.`);
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
  if (!isPkceValue(challenge)) throw new InvalidRequest("code_challenge must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.");
  if (method === null || method === "") throw new InvalidRequest("code_challenge_method is required and must be S256.");
  if (method !== "S256") throw new InvalidRequest(`code_challenge_method ${method} is not supported; use S256.`);
  return challenge;
}

/** Scopes, split on spaces. */
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
    throw new InvalidScope("offline_access alone grants nothing: ask for the scopes the token is for too, or name the resource (RFC 8707) whose metadata lists them.");
  }
  return resource;
}

/** A client with a ceiling on its scopes (this deployment's self-test) asks for no more. */
function checkScopeCeiling(scopes: readonly string[], client: ClientInfo | null): void {
  const ceiling = client?.own?.scopes;
  const beyond = ceiling ? scopes.filter((scope) => !ceiling.includes(scope)) : [];
  if (beyond.length > 0) throw new InvalidScope(`The self-test may ask for ${ceiling!.join(" ")} at most, not ${beyond.join(" ")}.`);
}

/** A request for a resource that names no scope granting access there (none at all, or
 * offline_access alone: what MCP hosts send when the resource names none) gets the resource's
 * default (RFC 6749 3.3), looked up by `defaultScopes`, which throws InvalidScope where there is
 * none. The defaults come first, as the scopes the page shows. */
async function withDefaultScopes(checked: CheckedParameters, input: PipelineInput): Promise<CheckedParameters> {
  if (checked.resource === undefined || accessScopes(checked.scopes).length > 0) return checked;
  if (!input.defaultScopes) {
    throw new InvalidScope(`No access token can be issued for ${checked.resource} without a scope. The resource's metadata (RFC 9728) should list its scopes in scopes_supported, which MCP clients then ask for.`);
  }
  const defaults = await input.defaultScopes(checked.resource);
  return { ...checked, scopes: [...defaults, ...checked.scopes.filter((scope) => !defaults.includes(scope))], defaultScopes: defaults };
}

export interface PipelineInput {
  params: URLSearchParams;
  ownerMe: string;
  discover: (clientId: URL) => Promise<ClientInfo>;
  /** A client known without a fetch (this deployment itself), else undefined. */
  knownClient: (clientId: URL) => ClientInfo | undefined;
  /** Whether errors may be redirected to this verified redirect URI without the person choosing
   * to go (the rule lives with the endpoints: endpoints/error-redirects.ts). */
  errorsMayRedirect: (clientId: string, redirectUri: string) => Promise<boolean>;
  /** Called once the redirect URI is verified: from then on, errors go back to the client,
   * by redirect when the URI is trusted, else by a link the person may follow. */
  onRedirectUriVerified: (target: ClientReply) => void;
  /** The default scopes of a resource the request names without any (withDefaultScopes); throws
   * InvalidScope where there are none. Without it, such a request is refused. */
  defaultScopes?: (resource: string) => Promise<string[]>;
}

type CheckedParameters = Pick<AuthorizationRequest, "state" | "codeChallenge" | "scopes" | "meMismatch" | "resource" | "defaultScopes" | "prompt">;

/** The parameters: no network, so a failure is known before the client's page is fetched. */
function checkParameters(params: URLSearchParams, ownerMe: string): CheckedParameters {
  checkNoDuplicateParameters(params);
  checkResponseType(params);
  const checked: CheckedParameters = { state: checkState(params), codeChallenge: checkPkce(params), scopes: checkScope(params) };
  const meMismatch = checkMe(params, ownerMe);
  if (meMismatch !== undefined) checked.meMismatch = meMismatch;
  const resource = checkResource(params, checked.scopes);
  if (resource !== undefined) checked.resource = resource;
  const prompt = parsePrompt(params.get("prompt"));
  if (prompt.length > 0) checked.prompt = prompt;
  return checked;
}

/** The client, known without a fetch or discovered. The cheap checks first: a request whose
 * parameters fail anyway, with its redirect URI on the client's own origin, costs no fetch. */
async function clientOf(target: TrustedTarget, input: PipelineInput): Promise<ClientInfo | null> {
  const known = input.knownClient(target.clientId);
  if (known || !sameOrigin(target.clientId, target.redirectUri)) return known ?? discoverClient(target, input);
  try {
    checkParameters(input.params, input.ownerMe);
  } catch (error) {
    if (error instanceof AnsweredError) return null;
    throw error;
  }
  return discoverClient(target, input);
}

/** What the steps learn, in order. */
export interface CheckState {
  input: PipelineInput;
  target?: TrustedTarget;
  /** Null only for a request whose parameters fail anyway (clientOf). */
  client?: ClientInfo | null;
  checked?: CheckedParameters;
  request?: AuthorizationRequest;
}

/** The checks of GET /auth, in order. Before the line, failures are UntrustedRedirect, shown to
 * the person; at it (`redirectUriVerified`) the redirect URI is verified; after it, failures are
 * OAuth errors for the client, redirected only where `errorsMayRedirect` says (RFC 9700 4.11.2). */
export const AUTHORIZATION_REQUEST_STEPS: readonly Step<CheckState>[] = [
  { name: "client_id and redirect_uri", known: "unverified", run: (s) => void (s.target = checkClientIdAndRedirectUri(s.input.params)) },
  { name: "client", known: "unverified", run: async (s) => void (s.client = await clientOf(s.target!, s.input)) },
  { name: "redirect_uri allowed", known: "unverified", run: (s) => (s.client ? checkRedirectUriAllowed(s.target!, s.client) : undefined) },
  { name: "parameters", known: "verified", run: (s) => void (s.checked = checkParameters(s.input.params, s.input.ownerMe)) },
  { name: "scope ceiling", known: "verified", run: (s) => checkScopeCeiling(s.checked!.scopes, s.client!) },
  { name: "default scopes", known: "verified", run: async (s) => void (s.checked = await withDefaultScopes(s.checked!, s.input)) },
  { name: "request", known: "verified", run: (s) => void (s.request = requestOf(s.input.params, s.target!, s.checked!, s.client!)) },
];

/** The line: the redirect URI is verified; whether errors may be redirected there is decided. */
export async function redirectUriVerified({ input, target }: CheckState): Promise<void> {
  // The state goes back with an error only when it was given once.
  const states = input.params.getAll("state");
  const trusted = await input.errorsMayRedirect(target!.clientId.href, target!.redirectUri.href);
  input.onRedirectUriVerified({ redirectUri: input.params.get("redirect_uri")!, ...(states.length === 1 ? { state: states[0]! } : {}), trusted });
}

function requestOf(params: URLSearchParams, target: TrustedTarget, scoped: CheckedParameters, client: ClientInfo): AuthorizationRequest {
  const clientRead = clientReadOf(client);
  return {
    clientId: target.clientId.href,
    // Kept exactly as sent: the code redemption must present the very same string.
    redirectUri: params.get("redirect_uri")!,
    ...scoped,
    client: clientDisplay(client),
    ...(clientRead ? { clientRead } : {}),
    ...(client.authentication ? { authentication: client.authentication } : {}),
    ...(client.unread ? { documentUnread: true as const } : {}),
  };
}

export async function checkAuthorizationRequest(input: PipelineInput): Promise<AuthorizationRequest> {
  const state: CheckState = { input };
  await runSteps(AUTHORIZATION_REQUEST_STEPS, state, redirectUriVerified);
  return state.request!;
}

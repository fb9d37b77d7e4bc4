// Checking GET /auth: its steps (AUTHORIZATION_REQUEST_STEPS, at the end), each tagged by what
// is known when it runs (trust-steps.ts). endpoints/authorize.ts adds its own after them.
import { clientDisplay, clientReadOf, type ClientInfo } from "../core/client-shape.ts";
import { refusedClient } from "../clients/client-info.ts";
import { AnsweredError, InvalidScope, UntrustedRedirect } from "../errors.ts";
import type { AuthorizationRequest } from "../pages/sign-in-fragment.ts";
import { accessScopes } from "./scopes.ts";
import { parseClientId, parseRedirectUri, sameOrigin } from "../core/urls.ts";
import type { ClientReply } from "./authorization-response.ts";
import { checkRedirectUriAllowed, type TrustedTarget } from "./redirect-allowed.ts";
import type { Step } from "./trust-steps.ts";
import { checkParameters, checkScopeCeiling, type CheckedParameters } from "./request-parameters.ts";

/** client_id and redirect_uri are well-formed URLs (spec 3.3), each given once. */
function checkClientIdAndRedirectUri(params: URLSearchParams): TrustedTarget {
  for (const name of ["client_id", "redirect_uri"]) {
    const count = params.getAll(name).length;
    if (count === 0)
      throw new UntrustedRedirect(
        "The app's request is incomplete",
        `The sign-in link has no ${name}. Go back to the app and try again.`,
      );
    if (count > 1)
      throw new UntrustedRedirect("The app's request is malformed", `The sign-in link gives ${name} more than once.`);
  }
  const clientId = parseClientId(params.get("client_id")!);
  if (!clientId.ok)
    throw new UntrustedRedirect(
      "The app's identity is not valid",
      `The app's client_id cannot be used: ${clientId.reason}.`,
    );
  const redirectUri = parseRedirectUri(params.get("redirect_uri")!);
  if (!redirectUri.ok)
    throw new UntrustedRedirect(
      "The app's return address is not valid",
      `The app's redirect_uri cannot be used: ${redirectUri.reason}.`,
    );
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
    throw new UntrustedRedirect(
      "The app's metadata document cannot be used",
      `The app's metadata document was not used: ${client.refused}. It says how the app proves itself to this server, so the sign-in cannot go on without it.`,
    );
  }
  // CIMD draft 4, 5.1: a document that names another client_id (or none) may be a copy of another
  // app's; the sign-in stops, rather than go on as an app that publishes nothing.
  if (client.identityRefused) {
    throw new UntrustedRedirect(
      "The app's metadata document names another app",
      `The app's metadata document was not used: ${client.refused}. A document must name the very address it is published at (its client_id), or it could be a copy of another app's, so the sign-in cannot go on. The app's developer can fix the document's client_id.`,
    );
  }
  if (client.metadataDocument && target.rawClientId !== client.clientId) {
    // The code is still for the client_id the document names (URLs are compared canonically
    // at redemption): it carries what the document declares, so that a spelling never makes
    // the client weaker than its document.
    const refused = refusedClient(
      client.clientId,
      `the request's client_id is not spelled exactly as the document's (${client.clientId})`,
    );
    return client.authentication ? { ...refused, authentication: client.authentication } : refused;
  }
  return client;
}

/** A request for a resource that names no scope granting access there (none at all, or
 * offline_access alone: what MCP hosts send when the resource names none) gets the resource's
 * default (RFC 6749 3.3), looked up by `defaultScopes`, which throws InvalidScope where there is
 * none. The defaults come first, as the scopes the page shows. */
async function withDefaultScopes(checked: CheckedParameters, input: PipelineInput): Promise<CheckedParameters> {
  if (checked.resource === undefined || accessScopes(checked.scopes).length > 0) return checked;
  if (!input.defaultScopes) {
    throw new InvalidScope(
      `No access token can be issued for ${checked.resource} without a scope. The resource's metadata (RFC 9728) should list its scopes in scopes_supported, which MCP clients then ask for.`,
    );
  }
  const defaults = await input.defaultScopes(checked.resource);
  return {
    ...checked,
    scopes: [...defaults, ...checked.scopes.filter((scope) => !defaults.includes(scope))],
    defaultScopes: defaults,
  };
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
  {
    name: "client_id and redirect_uri",
    known: "unverified",
    run: (s) => void (s.target = checkClientIdAndRedirectUri(s.input.params)),
  },
  { name: "client", known: "unverified", run: async (s) => void (s.client = await clientOf(s.target!, s.input)) },
  {
    name: "redirect_uri allowed",
    known: "unverified",
    run: (s) => (s.client ? checkRedirectUriAllowed(s.target!, s.client) : undefined),
  },
  {
    name: "parameters",
    known: "verified",
    run: (s) => void (s.checked = checkParameters(s.input.params, s.input.ownerMe)),
  },
  { name: "scope ceiling", known: "verified", run: (s) => checkScopeCeiling(s.checked!.scopes, s.client!) },
  {
    name: "default scopes",
    known: "verified",
    run: async (s) => void (s.checked = await withDefaultScopes(s.checked!, s.input)),
  },
  {
    name: "request",
    known: "verified",
    run: (s) => void (s.request = requestOf(s.input.params, s.target!, s.checked!, s.client!)),
  },
];

/** The line: the redirect URI is verified; whether errors may be redirected there is decided. */
export async function redirectUriVerified({ input, target }: CheckState): Promise<void> {
  // The state goes back with an error only when it was given once.
  const states = input.params.getAll("state");
  const trusted = await input.errorsMayRedirect(target!.clientId.href, target!.redirectUri.href);
  input.onRedirectUriVerified({
    redirectUri: input.params.get("redirect_uri")!,
    ...(states.length === 1 ? { state: states[0]! } : {}),
    trusted,
  });
}

function requestOf(
  params: URLSearchParams,
  target: TrustedTarget,
  scoped: CheckedParameters,
  client: ClientInfo,
): AuthorizationRequest {
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

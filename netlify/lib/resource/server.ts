// The resource-server API: one object per environment, made on first use. `index.ts` exports
// the functions of the one made from process.env; `resourceServer()` makes others (tests, or a
// function that configures itself in code).
import {
  BearerRefusal,
  InsufficientScope,
  InvalidBearerRequest,
  InvalidToken,
  MethodNotAllowed,
  MissingBearerToken,
  NotFound,
  SetupIncomplete,
  TemporarilyUnavailable,
  type AnsweredError,
} from "../errors.ts";
import { resourceMetadataUrl } from "../core/resource-metadata-url.ts";
import { urlOf } from "../core/urls.ts";
import { errorResponse } from "../http/error-response.ts";
import { preflight, readableByAnyOrigin } from "../http/cors.ts";
import { json } from "../http/responses.ts";
import { blobStore, StorageUnavailable, type KeyValueStore } from "../platform/store.ts";
import { introspectionVerifier } from "./introspection-client.ts";
import {
  metadataDocument,
  resolveResource,
  resourcePathOf,
  resourceScopes,
  type ProtectedResourceMetadata,
  type ResourceDescription,
} from "./metadata.ts";
import { connectionLogSubscriber } from "../owner/connection-log.ts";
import type { Emit } from "../platform/events.ts";
import { grantIdOf } from "../protocol/grant-tokens.ts";
import { checkAccessToken, introspectionBody } from "../protocol/verification.ts";
import { tokenFromIntrospection } from "./introspection-answer.ts";
import { tokenOfRequest } from "./request-token.ts";
import { readResourceSettings, type ResourceSettings } from "./settings.ts";
import {
  ResourceSetupError,
  ResourceUsageError,
  TokenCheckUnavailable,
  type ActiveToken,
  type RequireOptions,
  type TokenVerification,
  type VerifyOptions,
} from "./types.ts";

export interface ResourceServerOptions {
  /** Where the settings come from; by default process.env. */
  env?: Record<string, string | undefined>;
  /** Same-site mode: the store to read (by default the server's Blobs store, INDIEAUTH_STORE). */
  store?: KeyValueStore;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

export interface ResourceServer {
  /** "same-site" (reads the store) or "introspection" (asks INDIEAUTH_SERVER's /introspect). */
  readonly mode: ResourceSettings["mode"];
  verifyAccessToken(tokenOrRequest: string | Request, options?: VerifyOptions): Promise<TokenVerification>;
  requireToken(request: Request, options?: RequireOptions): Promise<ActiveToken | Response>;
  protectedResourceMetadata(description: ResourceDescription, request?: Request): ProtectedResourceMetadata;
  protectedResourceMetadataHandler(
    resources: ResourceDescription | readonly ResourceDescription[],
  ): (request: Request) => Promise<Response>;
}

type Verify = (token: string) => Promise<TokenVerification>;

const SCOPE_SEPARATOR = / +/;

/** The scopes a request needs, each once, without `offline_access` (see resourceScopes): it is
 * never required of a token nor named in a challenge, whatever the blog's code lists. */
function neededScopes(scope: RequireOptions["scope"]): string[] {
  if (scope === undefined) return [];
  return resourceScopes(typeof scope === "string" ? scope.split(SCOPE_SEPARATOR) : scope);
}

/** Whether a token may be used at `resource`: its audience names it, or it has none and none
 * is required. A token bound to a resource (RFC 8707) is good there only, so a caller that
 * names no resource cannot accept it: it cannot tell whether it is that resource. */
function forResource(token: ActiveToken, resource: string | undefined, requireAudience: boolean): boolean {
  if (token.aud === undefined) return !requireAudience;
  if (resource === undefined) return false;
  return (Array.isArray(token.aud) ? token.aud : [token.aud]).some((aud) => (urlOf(aud)?.href ?? aud) === resource);
}

function verifierFor(settings: ResourceSettings, options: ResourceServerOptions): Verify {
  const now = options.now ?? Date.now;
  if (settings.mode === "introspection")
    return introspectionVerifier(settings.introspectionEndpoint, settings.credential, now);
  const store = options.store ?? blobStore(settings.storeName);
  return async (token) => {
    try {
      // With exactly the rules (and usage record) of POST /introspect, and the body it would send.
      const check = await checkAccessToken(store, token, now());
      if (!check.active) return { active: false, reason: check.reason };
      return tokenFromIntrospection(introspectionBody(check.grant))!;
    } catch (error) {
      if (error instanceof StorageUnavailable) throw new TokenCheckUnavailable("the Blobs store did not answer", error);
      throw error;
    }
  };
}

function unavailable(error: unknown): AnsweredError {
  console.error(
    error instanceof Error
      ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}`
      : error,
  );
  if (error instanceof ResourceSetupError) {
    const problem = { message: error.message, fix: "See the README's resource-server section" };
    return new SetupIncomplete(`Tokens cannot be checked: ${error.message}.`, [problem], false);
  }
  return new TemporarilyUnavailable("Tokens cannot be checked right now");
}

export function resourceServer(options: ResourceServerOptions = {}): ResourceServer {
  const read = readResourceSettings(options.env ?? process.env);
  const settings = read.ok ? read.settings : undefined;
  const setupError = read.ok
    ? undefined
    : new ResourceSetupError(read.problem.variable, `${read.problem.message}. ${read.problem.fix}.`);
  let verify: Verify | undefined;
  let log: Emit | undefined;
  /** A refused token, told to the connection doctor: on the same site only (where the function
   * shares the server's store), never awaited (no waitUntil here: the refusal is answered at once). */
  const logRefusal = (token: string, reason: string) => {
    const grantId = grantIdOf(token, "access") ?? grantIdOf(token, "refresh");
    if (settings?.mode !== "same-site" || !grantId) return;
    log ??= connectionLogSubscriber({
      rt: { store: options.store ?? blobStore(settings.storeName), now: options.now ?? Date.now },
    });
    void log({ type: "resource-refused", grantId, reason });
  };

  /** The issuer, and the origin relative resources are taken against. */
  const issuerFor = (request?: Request): string => {
    if (settings?.issuer) return settings.issuer;
    if (request) return `${new URL(request.url).origin}/`;
    throw new ResourceUsageError(
      "The IndieAuth server's address is not known here: set BASE_URL (or pass the request)",
    );
  };
  const originFor = (request?: Request) =>
    request ? new URL(request.url).origin : settings?.issuer ? new URL(settings.issuer).origin : undefined;
  const resourceOf = ({ resource }: VerifyOptions, request?: Request) =>
    resource === undefined ? undefined : resolveResource(resource, originFor(request));

  async function verifyToken(
    token: string,
    resource: string | undefined,
    requireAudience = false,
  ): Promise<TokenVerification> {
    if (!settings) throw setupError!;
    if (requireAudience && resource === undefined)
      throw new ResourceUsageError("requireAudience needs the resource to check the token's audience against");
    verify ??= verifierFor(settings, options);
    const answer = await verify(token);
    if (answer.active && !forResource(answer, resource, requireAudience))
      return { active: false, reason: "wrong-resource" };
    return answer;
  }

  const server: ResourceServer = {
    mode: settings?.mode ?? "same-site",

    async verifyAccessToken(tokenOrRequest, verifyOptions = {}) {
      const request = typeof tokenOrRequest === "string" ? undefined : tokenOrRequest;
      const resource = resourceOf(verifyOptions, request);
      const strict = verifyOptions.requireAudience === true;
      if (!request) return verifyToken(tokenOrRequest as string, resource, strict);
      const found = await tokenOfRequest(request);
      return found.found ? verifyToken(found.token, resource, strict) : { active: false, reason: found.reason };
    },

    async requireToken(request, requireOptions = {}) {
      const resource = resourceOf(requireOptions, request);
      if (requireOptions.requireAudience && resource === undefined)
        throw new ResourceUsageError("requireAudience needs the resource to check the token's audience against");
      const needed = neededScopes(requireOptions.scope);
      const scope = needed.join(" ");
      const resourceMetadata = resource === undefined ? undefined : resourceMetadataUrl(new URL(resource));
      // A Bearer refusal names where the resource's metadata is and the scope the request needs.
      const refusal = (error: AnsweredError) => {
        if (error instanceof BearerRefusal) error.withResourceChallenge({ resourceMetadata, scope });
        return errorResponse(error, "json");
      };
      const found = await tokenOfRequest(request);
      if (!found.found) {
        const error =
          found.reason === "missing"
            ? new MissingBearerToken(found.description)
            : found.reason === "malformed"
              ? new InvalidToken(found.description)
              : new InvalidBearerRequest(found.description);
        return refusal(error);
      }
      let answer: TokenVerification;
      try {
        answer = await verifyToken(found.token, resource, requireOptions.requireAudience === true);
      } catch (error) {
        return refusal(unavailable(error));
      }
      if (!answer.active) {
        logRefusal(found.token, answer.reason);
        // The same words in both modes, whatever the reason: the holder learns only that it is refused.
        const description =
          answer.reason === "wrong-resource"
            ? "The access token was not issued for this resource."
            : "The access token is invalid, expired or revoked.";
        return refusal(new InvalidToken(description));
      }
      const granted = new Set(answer.scope.split(SCOPE_SEPARATOR));
      if (needed.some((scope) => !granted.has(scope))) {
        logRefusal(found.token, "insufficient_scope");
        return refusal(new InsufficientScope(`The access token does not carry the scope this needs: ${scope}.`, scope));
      }
      return answer;
    },

    protectedResourceMetadata(description, request) {
      return metadataDocument(
        description,
        resolveResource(description.resource, originFor(request)),
        issuerFor(request),
      );
    },

    protectedResourceMetadataHandler(resources) {
      const list: readonly ResourceDescription[] = Array.isArray(resources)
        ? resources
        : [resources as ResourceDescription];
      return async (request) => {
        if (request.method === "OPTIONS") return preflight(["GET", "HEAD", "OPTIONS"]);
        if (request.method !== "GET" && request.method !== "HEAD")
          return readableByAnyOrigin(errorResponse(new MethodNotAllowed(["GET", "HEAD", "OPTIONS"]), "json"));
        const url = new URL(request.url);
        const path = resourcePathOf(url);
        const described =
          path === null
            ? undefined
            : list.find((d) => {
                const resource = new URL(resolveResource(d.resource, url.origin));
                return resource.pathname + resource.search === path;
              });
        return readableByAnyOrigin(
          described
            ? json(server.protectedResourceMetadata(described, request))
            : errorResponse(new NotFound(`No protected resource is described at ${url.pathname}.`), "json"),
        );
      };
    },
  };
  return server;
}

// The one place the shared helpers and the bench (scripts/bench/) call the endpoint handlers:
// when a handler's name or signature changes, `endpoints` below is what changes with it.
// Then the walks every test repeats (GET /auth, the approve step, the token endpoints), built
// on it. No vitest here: an unexpected answer throws a plain Error that says what came back.
import { accountApi } from "../../netlify/lib/endpoints/account.ts";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { metadataEndpoint } from "../../netlify/lib/endpoints/metadata.ts";
import { passkeysApi } from "../../netlify/lib/endpoints/passkey-api.ts";
import { clientRegistration } from "../../netlify/lib/endpoints/registration.ts";
import { revocationEndpoint } from "../../netlify/lib/endpoints/revocation.ts";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { introspectionEndpoint } from "../../netlify/lib/endpoints/token-verification.ts";
import { userinfoEndpoint } from "../../netlify/lib/endpoints/userinfo.ts";
import type { FullRuntime } from "./runtime.ts";
import {
  type ApproveOptions,
  approveRequest,
  authorizationParams,
  authorizationRequest,
  CLIENT_IP,
  introspectionRequest,
  pkcePair,
  post,
  redirectParams,
  type SignedIn,
  userinfoRequest,
} from "./requests.ts";

/** What the function adapter passes from Netlify's context: the client's address and device. */
export interface CallerInfo {
  ip: string;
  userAgent: string;
}

/** What else Netlify's context may give: a way to finish work after the answer (waitUntil). */
export interface PlatformInfo {
  waitUntil?: (work: Promise<unknown>) => void;
}

type Endpoint = (req: Request, rt: FullRuntime, platform?: PlatformInfo) => Promise<Response>;
type EndpointWithCaller = (req: Request, rt: FullRuntime, caller: CallerInfo & PlatformInfo) => Promise<Response>;

/** Each endpoint as its Netlify function calls it. */
export const endpoints: {
  metadata: Endpoint;
  authorize: Endpoint;
  /** The sign-in page's POST /auth/approve; userAgent may be "" (not sent). */
  approve: (
    req: Request,
    rt: FullRuntime,
    caller: { ip: string; userAgent?: string } & PlatformInfo,
  ) => Promise<Response>;
  /** POST /auth: a code redeemed for the profile URL only. */
  profileRedemption: Endpoint;
  /** /token: POST redeems a code or a refresh token, GET is the legacy verification. */
  token: Endpoint;
  introspect: Endpoint;
  userinfo: Endpoint;
  revoke: Endpoint;
  /** POST /register (RFC 7591) and GET /register/<id> (a registered app's metadata document). */
  register: EndpointWithCaller;
  account: EndpointWithCaller;
  passkeys: EndpointWithCaller;
} = {
  metadata: (req, rt, platform) => metadataEndpoint(req, rt, platform),
  authorize: (req, rt, platform) => authorizationEndpoint(req, rt, platform),
  approve: (req, rt, caller) => approveEndpoint(req, rt, caller),
  profileRedemption: (req, rt, platform) => authorizationEndpoint(req, rt, platform),
  token: (req, rt, platform) => tokenEndpoint(req, rt, platform),
  introspect: (req, rt, platform) => introspectionEndpoint(req, rt, platform),
  userinfo: (req, rt, platform) => userinfoEndpoint(req, rt, platform),
  revoke: (req, rt, platform) => revocationEndpoint(req, rt, platform),
  register: (req, rt, caller) => clientRegistration(req, rt, caller),
  account: (req, rt, caller) => accountApi(req, rt, caller),
  passkeys: (req, rt, caller) => passkeysApi(req, rt, caller),
};

export function authorize(
  rt: FullRuntime,
  params: URLSearchParams | string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return endpoints.authorize(authorizationRequest(params, headers), rt);
}

/** GET /auth, expecting the hand-over to the sign-in page; returns the signed request. */
export async function signedRequest(rt: FullRuntime, params = authorizationParams()): Promise<string> {
  const response = await authorize(rt, params);
  const location = response.headers.get("location") ?? "";
  const token = location.startsWith("/indieauth/sign-in/#request=")
    ? new URLSearchParams(location.split("#")[1]).get("request")
    : null;
  if (response.status !== 303 || !token) {
    throw new Error(
      `GET /auth: expected 303 to /indieauth/sign-in/#request=..., got ${response.status} "${location}" ${await response.text()}`,
    );
  }
  return token;
}

/** The approve step (with the test password unless options.password says otherwise). */
export function approve(rt: FullRuntime, request: string, options: ApproveOptions = {}): Promise<Response> {
  const caller = {
    ip: options.ip ?? CLIENT_IP,
    ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
  };
  return endpoints.approve(approveRequest(request, options), rt, caller);
}

/** A real sign-in through GET /auth and the approve step; the scopes are all ticked. */
export async function signInForCode(rt: FullRuntime, scope: string | null = "profile email create"): Promise<SignedIn> {
  const { verifier, challenge } = pkcePair();
  const request = await signedRequest(rt, authorizationParams({ code_challenge: challenge, scope }));
  const response = await approve(rt, request, { scopes: scope ? scope.split(" ") : [] });
  return { code: redirectParams(response).get("code")!, verifier };
}

export const postToken = (rt: FullRuntime, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  endpoints.token(post("/token", fields, headers), rt);
export const postAuth = (rt: FullRuntime, fields: Record<string, string>) =>
  endpoints.profileRedemption(post("/auth", fields), rt);
export const revoke = (rt: FullRuntime, fields: Record<string, string>) =>
  endpoints.revoke(post("/revoke", fields), rt);

export function introspect(
  rt: FullRuntime,
  token: string | null,
  fields: Record<string, string> = {},
  query = "",
): Promise<Response> {
  return endpoints.introspect(introspectionRequest(token, fields, query), rt);
}

export function userinfo(rt: FullRuntime, token: string | null): Promise<Response> {
  return endpoints.userinfo(userinfoRequest(token), rt);
}

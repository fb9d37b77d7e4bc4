// GET /auth, as one ordered list of named steps (GET_AUTH_STEPS), each tagged by what is known
// when it runs (protocol/trust-steps.ts; docs/architecture.md, "One sign-in, step by step").
import { logoPath } from "../clients/logo-link.ts";
import { ownClientInfo } from "../clients/own-client.ts";
import { ConsentRequired, InteractionLoginRequired, InvalidRequest } from "../errors.ts";
import type { RequestContext } from "../http/endpoint.ts";
import { redirect } from "../http/responses.ts";
import { HOME_PAGE, SIGN_IN_PAGE } from "../pages/paths.ts";
import { writeSignInFragment } from "../pages/sign-in-fragment.ts";
import {
  AUTHORIZATION_REQUEST_STEPS,
  redirectUriVerified,
  type CheckState,
} from "../protocol/authorization-request.ts";
import { requestTooLarge, signRequest } from "../protocol/request-object.ts";
import { registeredClientInfo } from "../protocol/registered-clients.ts";
import { defaultScopesFor } from "../protocol/resource-default-scopes.ts";
import { runSteps, type Step } from "../protocol/trust-steps.ts";
import { approvalPolicyOf } from "../owner/approval-policy.ts";
import { errorsMayRedirect } from "./error-redirects.ts";

interface Authorizing extends CheckState {
  ctx: RequestContext<never, "discover" | "resourceScopes">;
}

export const GET_AUTH_STEPS: readonly Step<Authorizing>[] = [
  ...AUTHORIZATION_REQUEST_STEPS,
  // prompt=none: answered without a page; here every approval is the owner's click.
  {
    name: "prompt=none",
    known: "verified",
    async run({ ctx, request }) {
      if (!request!.prompt?.includes("none")) return;
      throw (await approvalPolicyOf(ctx).silentRefusal(request!)) === "consent_required"
        ? new ConsentRequired(
            "The owner is signed in, but every approval here is made on the consent page: ask again without prompt=none.",
          )
        : new InteractionLoginRequired(
            "The owner must sign in to approve this request: ask again without prompt=none.",
          );
    },
  },
  // The page loads an app's logo from this server only (GET /auth/logo, fetched there through
  // the address guard), never from wherever the app says: no IP beacon to the app's host, no GET
  // from the owner's browser into their own network. The app's own URL stays for the console.
  {
    name: "logo through this server",
    known: "verified",
    run({ ctx, request }) {
      if (!request!.client.logoUri) return;
      request!.unshownLogoUri = request!.client.logoUri;
      request!.client.logoUri = logoPath(request!.client.logoUri, ctx.config.keys.logo);
    },
  },
  {
    name: "signed request to the sign-in page",
    known: "verified",
    async run({ ctx, request }) {
      const offer = await approvalPolicyOf(ctx).offer(request!);
      const signed = await signRequest(request!, ctx.config.keys.requestObject, ctx.config.issuer, ctx.rt.now(), {
        offer,
      });
      // Long state, client_id and client details can add up to more than the approve step reads.
      if (requestTooLarge(signed)) throw new InvalidRequest("The authorization request is too large.");
      const { clientId, codeChallenge: challenge, client, documentUnread } = request!;
      await ctx.emit(
        {
          type: "document-read",
          clientId,
          challenge,
          unread: documentUnread === true,
          ...(client.name ? { clientName: client.name } : {}),
        },
        { type: "consent-shown", clientId, challenge },
      );
      return redirect(`${SIGN_IN_PAGE}#${writeSignInFragment({ request: signed })}`, 303);
    },
  },
];

export async function authorize(ctx: RequestContext<never, "discover" | "resourceScopes">): Promise<Response> {
  const params = ctx.url.searchParams;
  // Someone who opens /auth by hand gets the home page, which explains what this is.
  if (params.size === 0) return redirect(HOME_PAGE, 302);
  const input = {
    params,
    ownerMe: ctx.config.me,
    discover: (clientId: URL) => ctx.rt.discover(clientId, ctx.rt.store),
    // Known without a fetch: this deployment itself, and an app that registered itself here
    // (its client_id carries its registration, signed; this server never fetches its own address).
    knownClient: (clientId: URL) =>
      ownClientInfo(ctx.config.baseUrl, clientId) ??
      registeredClientInfo(ctx.config.baseUrl, ctx.config.keys.registration, clientId),
    errorsMayRedirect: (clientId: string, redirectUri: string) => {
      approvalPolicyOf(ctx).readAhead(); // what the sign-in page's offer needs, beside the approval
      return errorsMayRedirect(ctx, clientId, redirectUri);
    },
    onRedirectUriVerified: ctx.replyTo,
    defaultScopes: (resource: string) => defaultScopesFor(resource, ctx.config, ctx.rt.resourceScopes),
  };
  // A refusal is logged for the client it names, at the step that refused it: the client's
  // document is read at the "client" step, everything else is the request's.
  const clientId = params.get("client_id");
  const challenge = params.get("code_challenge");
  const subject = (step: Step<Authorizing>) =>
    ctx.knows(
      clientId
        ? { clientId, stage: step.name === "client" ? "document" : "request", ...(challenge ? { challenge } : {}) }
        : null,
    );
  const answer = await runSteps(GET_AUTH_STEPS, { ctx, input }, redirectUriVerified, subject);
  if (!answer) throw new TypeError("GET /auth ended without an answer");
  return answer;
}

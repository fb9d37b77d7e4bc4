// The passkey API (/indieauth/api/passkeys): registering one from the console (a live session,
// and the password asked again), and signing in to the console with one. Signing in to an app
// with a passkey goes through the approve step, which verifies the same way.
import { eventSubscribers } from "../owner/event-subscribers.ts";
import { InvalidRequest } from "../errors.ts";
import { actionsEndpoint, route, type RequestContext } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { addPasskey, listPasskeys, passkeyName, passkeyView } from "../owner/passkey-records.ts";
// The WebAuthn library in it loads with the first ceremony, after the cheap checks (same origin,
// session), so that refusals and cold starts stay light.
import {
  authenticationOptions as ceremonyAuthenticationOptions,
  registrationOptions as ceremonyRegistrationOptions,
  verifyRegistration,
} from "../owner/webauthn.ts";
import { PASSKEYS_API } from "../pages/paths.ts";
import { consoleSignIn, ownerPasswordAgain, ownerSession } from "./owner-caller.ts";
import { MAX_PASSKEYS } from "../core/policy.ts";

/** The password again (the frame checks it: `reconfirmed`), then the ceremony's options. */
async function registrationOptions(ctx: RequestContext): Promise<Response> {
  const { rt, config } = ctx;
  const passkeys = await listPasskeys(rt.store);
  if (passkeys.length >= MAX_PASSKEYS)
    throw new InvalidRequest(`You have ${MAX_PASSKEYS} passkeys, the most this server keeps: remove one first.`);
  return json(await ceremonyRegistrationOptions(config, passkeys, rt.now()));
}

async function registration(ctx: RequestContext<"name" | "ticket" | "response">): Promise<Response> {
  const { rt, config } = ctx;
  const form = await ctx.form();
  const name = passkeyName(form.get("name") ?? "") ?? "Passkey";
  const passkey = await verifyRegistration(
    rt.store,
    config,
    { ticket: form.get("ticket") ?? "", response: form.get("response") ?? "", name },
    rt.now(),
  );
  if (!passkey) throw new InvalidRequest("The passkey could not be verified. Please try again.");
  if (!(await addPasskey(rt.store, passkey)))
    throw new InvalidRequest("This passkey is already registered, or you have the most passkeys this server keeps.");
  await ctx.emit({ type: "passkey-added", name: passkey.name });
  return json({ ok: true, passkey: passkeyView(passkey) });
}

async function authenticationOptions(ctx: RequestContext): Promise<Response> {
  const passkeys = await listPasskeys(ctx.rt.store);
  if (passkeys.length === 0) throw new InvalidRequest("No passkey is registered yet.");
  return json(await ceremonyAuthenticationOptions(ctx.config, passkeys, ctx.rt.now()));
}

async function signIn(ctx: RequestContext<"ticket" | "response" | "remember">): Promise<Response> {
  const form = await ctx.form();
  return consoleSignIn(ctx, {
    method: "passkey",
    ticket: form.get("ticket") ?? "",
    response: form.get("response") ?? "",
  });
}

const CROSS_SITE = "Passkeys can be used from this site's own pages only.";

export const passkeysApi = actionsEndpoint({
  events: eventSubscribers,
  base: PASSKEYS_API,
  unknownAction: "There is no such passkey action.",
  actions: {
    "/authentication-options": {
      POST: route({
        caller: "same-origin",
        crossSite: CROSS_SITE,
        answers: "json",
        body: { form: [] },
        redirects: "none",
        run: authenticationOptions,
      }),
    },
    "/sign-in": {
      POST: route({
        caller: "same-origin",
        crossSite: CROSS_SITE,
        answers: "json",
        body: { form: ["ticket", "response", "remember"] },
        redirects: "none",
        run: signIn,
      }),
    },
    // The password again, as the console's form asks for it (not a passkey's answer).
    "/registration-options": {
      POST: route({
        caller: "reconfirmed",
        crossSite: CROSS_SITE,
        owner: ownerPasswordAgain,
        answers: "json",
        body: { form: ["password"] },
        redirects: "none",
        run: registrationOptions,
      }),
    },
    "/registration": {
      POST: route({
        caller: "session",
        crossSite: CROSS_SITE,
        owner: ownerSession,
        answers: "json",
        body: { form: ["name", "ticket", "response"] },
        redirects: "none",
        run: registration,
      }),
    },
  },
});

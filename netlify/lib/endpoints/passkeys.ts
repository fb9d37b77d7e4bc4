// The passkey API (/indieauth/api/passkeys): registering one from the console (a live session,
// and the password asked again), and signing in to the console with one. Signing in to an app
// with a passkey goes through the approve step, which verifies the same way.
import type { Config } from "../platform/config.ts";
import { AccessDenied, InvalidRequest, NotFound } from "../errors.ts";
import { answeringOAuthErrors, isSameOriginPost, json, methodNotAllowed, readForm } from "../http/responses.ts";
import { signInOwner } from "../owner/sign-in.ts";
import { addPasskey, listPasskeys, passkeyName, passkeyView, MAX_PASSKEYS } from "../owner/passkeys.ts";
import { PASSKEYS_API } from "../pages/paths.ts";
import type { Runtime } from "../platform/runtime.ts";
import { currentSession, sessionSettings, startSession } from "../owner/sessions.ts";
import { loginRequired, signInError, type ConsoleRequestInfo } from "./account.ts";
import { setupJson } from "../http/setup.ts";

/** The WebAuthn library is large; it is loaded after the request has passed the cheap checks
 * (same origin, session), so that refusals and cold starts stay light. */
const webauthn = () => import("../owner/webauthn.ts");

async function startRegistration(rt: Runtime, config: Config, form: URLSearchParams, info: ConsoleRequestInfo): Promise<Response> {
  const confirmed = await signInOwner(rt, config, { method: "password", password: form.get("password") ?? "" }, { ip: info.ip, where: "account" }, "confirm");
  if (!confirmed.ok) signInError(confirmed);
  const passkeys = await listPasskeys(rt.store);
  if (passkeys.length >= MAX_PASSKEYS) throw new InvalidRequest(`You have ${MAX_PASSKEYS} passkeys, the most this server keeps: remove one first.`);
  const { registrationOptions } = await webauthn();
  return json(await registrationOptions(config, passkeys, rt.now()));
}

async function finishRegistration(rt: Runtime, config: Config, form: URLSearchParams): Promise<Response> {
  const name = passkeyName(form.get("name") ?? "") ?? "Passkey";
  const now = rt.now();
  const { verifyRegistration } = await webauthn();
  const passkey = await verifyRegistration(rt.store, config, { ticket: form.get("ticket") ?? "", response: form.get("response") ?? "", name }, now);
  if (!passkey) throw new InvalidRequest("The passkey could not be verified. Please try again.");
  if (!(await addPasskey(rt.store, passkey))) throw new InvalidRequest("This passkey is already registered, or you have the most passkeys this server keeps.");
  return json({ ok: true, passkey: passkeyView(passkey) });
}

async function signIn(rt: Runtime, config: Config, form: URLSearchParams, info: ConsoleRequestInfo): Promise<Response> {
  const credential = { method: "passkey", ticket: form.get("ticket") ?? "", response: form.get("response") ?? "" } as const;
  const result = await signInOwner(rt, config, credential, { ip: info.ip, where: "account" });
  if (!result.ok) signInError(result);
  const persistent = form.get("remember") === "true";
  const { setCookie } = await startSession(rt.store, sessionSettings(config), { method: "passkey", persistent, ip: info.ip, userAgent: info.userAgent }, rt.now());
  return json({ ok: true }, 200, { "Set-Cookie": setCookie });
}

export async function handlePasskeys(req: Request, rt: Runtime, info: ConsoleRequestInfo): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  const { config } = rt.config;
  const action = new URL(req.url).pathname.slice(PASSKEYS_API.length).replace(/\/$/, "");

  return answeringOAuthErrors(async () => {
    if (req.method !== "POST") return methodNotAllowed(["POST"]);
    if (!isSameOriginPost(req, config.baseUrl)) throw new AccessDenied("Passkeys can be used from this site's own pages only.");
    const form = await readForm(req, undefined, { json: true });
    switch (action) {
      case "/authentication-options": {
        const passkeys = await listPasskeys(rt.store);
        if (passkeys.length === 0) throw new InvalidRequest("No passkey is registered yet.");
        const { authenticationOptions } = await webauthn();
        return json(await authenticationOptions(config, passkeys, rt.now()));
      }
      case "/sign-in":
        return signIn(rt, config, form, info);
      case "/registration-options":
      case "/registration": {
        if (!(await currentSession(rt.store, req, sessionSettings(config), rt.now()))) return loginRequired(rt, config);
        return action === "/registration" ? finishRegistration(rt, config, form) : startRegistration(rt, config, form, info);
      }
      default:
        throw new NotFound("There is no such passkey action.");
    }
  });
}

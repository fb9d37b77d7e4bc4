// How the owner proves it is them, wherever they sign in (an app's sign-in page or the
// console): the password or a passkey, both under the guessing throttle. Each real attempt
// lands in the sign-in history; a throttled one does not, so an attacker cannot flood it.
import { AccessDenied, InvalidRequest, TooManyAttempts, WrongCredentials, type AnsweredError } from "../errors.ts";
import type { SignInEventView } from "../pages/account-view.ts";
import type { Config } from "../platform/config.ts";
import { listPasskeys, passwordLoginAllowed, recordPasskeyUse } from "./passkeys.ts";
import { verifyPassword } from "./password.ts";
import type { Runtime } from "../platform/runtime.ts";
import { SIGN_IN_FAILURES, type SignInFailure } from "./sign-in-failures.ts";
import { recordSignInEvent } from "./sign-in-events.ts";
import { attemptSucceeded, beginAttempt } from "./throttle.ts";

type OwnerCredential =
  | { method: "password"; password: string }
  | { method: "passkey"; ticket: string; response: string };


type SignInResult =
  | { ok: true; method: OwnerCredential["method"] }
  | { ok: false; reason: SignInFailure }
  | { ok: false; reason: "throttled"; retryAfterSeconds: number };

export interface AttemptContext {
  ip: string;
  where: SignInEventView["where"];
  clientId?: string;
}

export async function recordAttempt(
  rt: Runtime,
  context: AttemptContext,
  method: SignInEventView["method"],
  failure?: SignInFailure,
): Promise<void> {
  const event: SignInEventView = { at: rt.now(), ip: context.ip, where: context.where, method, outcome: failure ? "failure" : "success" };
  if (context.clientId) event.clientId = context.clientId;
  if (failure) event.reason = SIGN_IN_FAILURES[failure].logged;
  await recordSignInEvent(rt.store, event);
}

/** "sign-in" starts something; "confirm" re-checks a signed-in owner before a sensitive change
 * (adding or removing a passkey), where the password is accepted even with PASSWORD_LOGIN=off. */
type Purpose = "sign-in" | "confirm";

async function checkPassword(rt: Runtime, config: Config, password: string, context: AttemptContext, purpose: Purpose): Promise<SignInResult> {
  // An empty password is nobody's guess (a session that ended while the page was open).
  if (password === "") return { ok: false, reason: "empty" };
  const off = purpose === "sign-in" && !config.passwordLogin && !passwordLoginAllowed(false, await listPasskeys(rt.store));
  // The throttle comes before anything is recorded, on every path. A password that is off is
  // never checked, so it guesses nothing: it counts against its address only (against floods).
  const verdict = await beginAttempt(rt.store, context.ip, rt.now(), off ? "address" : "overall");
  if (!verdict.allowed) return { ok: false, reason: "throttled", retryAfterSeconds: verdict.retryAfterSeconds };
  if (off) {
    await recordAttempt(rt, context, "password", "password-off");
    return { ok: false, reason: "password-off" };
  }
  if (!(await verifyPassword(password, config.password))) {
    // The attempt's own record is the failure count.
    await recordAttempt(rt, context, "password", "password");
    return { ok: false, reason: "password" };
  }
  await Promise.all([attemptSucceeded(rt.store, verdict.attempt), recordAttempt(rt, context, "password")]);
  return { ok: true, method: "password" };
}

async function checkPasskey(rt: Runtime, config: Config, ticket: string, response: string, context: AttemptContext): Promise<SignInResult> {
  // A passkey answer cannot be guessed, so the overall lock (which is there against password
  // guessing) never applies: junk from any number of addresses cannot lock the owner's passkey
  // out. Failed answers still count against their own address, which keeps an attacker's junk
  // from flooding the verification and the history.
  const now = rt.now();
  const verdict = await beginAttempt(rt.store, context.ip, now, "address");
  if (!verdict.allowed) return { ok: false, reason: "throttled", retryAfterSeconds: verdict.retryAfterSeconds };
  const passkeys = await listPasskeys(rt.store);
  // Loaded only here: the WebAuthn library is the heaviest thing this server uses.
  const { verifyAuthentication } = await import("./webauthn.ts");
  const verified = passkeys.length > 0 ? await verifyAuthentication(rt.store, config, passkeys, { ticket, response }, now) : null;
  if (!verified) {
    await recordAttempt(rt, context, "passkey", "passkey");
    return { ok: false, reason: "passkey" };
  }
  await Promise.all([
    recordPasskeyUse(rt.store, verified.passkey.id, verified.counter, now),
    attemptSucceeded(rt.store, verdict.attempt),
    recordAttempt(rt, context, "passkey"),
  ]);
  return { ok: true, method: "passkey" };
}

export async function signInOwner(rt: Runtime, config: Config, credential: OwnerCredential, context: AttemptContext, purpose: Purpose = "sign-in"): Promise<SignInResult> {
  return credential.method === "password"
    ? checkPassword(rt, config, credential.password, context, purpose)
    : checkPasskey(rt, config, credential.ticket, credential.response, context);
}

/** The credential a form carries: a passkey answer when there is one, else the password. */
export function credentialFrom(form: URLSearchParams): OwnerCredential {
  const response = form.get("passkey_response");
  if (response) return { method: "passkey", ticket: form.get("passkey_ticket") ?? "", response };
  return { method: "password", password: form.get("password") ?? "" };
}

/** Held back by the guessing throttle, in the words every sign-in form shows. */
export function throttled(retryAfterSeconds: number): TooManyAttempts {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return new TooManyAttempts(`Too many wrong passwords. For your safety, signing in is paused: try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, retryAfterSeconds);
}

/** A failed sign-in as the console's API refuses it. */
export function refusalFor(result: Exclude<SignInResult, { ok: true }>): AnsweredError {
  if (result.reason === "throttled") return throttled(result.retryAfterSeconds);
  const shown = SIGN_IN_FAILURES[result.reason].shown;
  switch (result.reason) {
    case "password":
    case "passkey":
      return new WrongCredentials(shown);
    case "password-off":
      return new AccessDenied(shown);
    case "empty":
      return new InvalidRequest(shown);
  }
}

// How the owner proves it is them (an app's sign-in page or the console): the password, under the
// guessing throttle, or a passkey, whose valid answer cannot be guessed and so is never held back
// (docs/security.md). Each real attempt is emitted for the sign-in history; a throttled one is only
// counted there, after the answer. Every success marks the browser as known (its cookies).
import type { Fields } from "../core/fields.ts";
import { AccessDenied, InvalidRequest, TooManyAttempts, WrongCredentials, type AnsweredError } from "../errors.ts";
import type { SignInEventView } from "../pages/account-view.ts";
import type { Config } from "../platform/config.ts";
import { listPasskeys, passwordLoginAllowed, recordPasskeyUse } from "./passkey-records.ts";
import { verifyPassword } from "./password.ts";
import type { Runtime } from "../platform/runtime.ts";
import { SIGN_IN_FAILURES, type SignInFailure } from "../pages/sign-in-failures.ts";
import type { Emit } from "../platform/events.ts";
import { knownDevice, rememberDevice } from "./known-device.ts";
import { deviceLabel } from "./user-agent.ts";
import { passkeyAnswer, verifyAuthentication } from "./webauthn.ts";
import {
  attemptSucceeded,
  beginAttempt,
  sourceSucceeded,
  type AttemptSource,
  type OverallState,
  type ThrottleVerdict,
} from "./throttle.ts";

export type OwnerCredential =
  { method: "password"; password: string } | { method: "passkey"; ticket: string; response: string };
type Method = OwnerCredential["method"];

type SignInResult =
  | {
      ok: true;
      method: Method;
      /** False when this browser had not signed in before (no known-device cookie, no live
       * session): "a sign-in from a new device", for whoever tells the owner. */
      knownDevice: boolean;
      /** Set-Cookie values that mark the browser as known: the answer must carry them. */
      setCookies: string[];
      overall: OverallState;
    }
  | { ok: false; reason: SignInFailure; overall?: OverallState }
  /** `overall` says whether the overall limit was in force ("engaged"); `method`, what was refused. */
  | {
      ok: false;
      reason: "throttled";
      method: Method;
      retryAfterSeconds: number;
      overall: OverallState;
      busy?: true;
    };

export interface AttemptContext {
  ip: string;
  where: SignInEventView["where"];
  clientId?: string;
  /** The request, for its known-device cookie. */
  req?: Request;
  /** The live session of the request, when the caller has looked it up. */
  sessionId?: string;
  /** The browser's User-Agent, to name the device in an alert. */
  userAgent?: string;
  /** The request's events: the attempt, for the history; a new device or the throttle, for the alerts. */
  emit: Emit;
}

/** Where an attempt comes from, as the throttle counts it: its device is a known device by its
 * cookie's id, else a live session by its id; neither for anyone else. */
async function deviceOf(
  config: Config,
  context: AttemptContext,
  now: number,
): Promise<{ cookieId: string | null; source: AttemptSource }> {
  const cookieId = context.req ? await knownDevice(context.req, config, now) : null;
  const device = cookieId ? `device:${cookieId}` : context.sessionId ? `session:${context.sessionId}` : undefined;
  return { cookieId, source: { ip: context.ip, ...(device ? { device } : {}) } };
}

type Device = Awaited<ReturnType<typeof deviceOf>>;

/** Held back by the throttle: nothing was checked. The refusal is counted in the history after
 * the answer (sign-in-events.ts bounds what that writes), so the owner sees it happened. */
async function refused(
  context: AttemptContext,
  verdict: Extract<ThrottleVerdict, { allowed: false }>,
  method: Method,
): Promise<SignInResult> {
  const { heldBySince } = verdict;
  if (heldBySince) await context.emit({ type: "sign-in-throttled", heldBySince });
  return {
    ok: false,
    reason: "throttled",
    method,
    retryAfterSeconds: verdict.retryAfterSeconds,
    overall: verdict.overall,
    ...(verdict.busy ? { busy: true as const } : {}),
  };
}

/** After a right credential: the attempt's counts taken back (`settle`), the success in the
 * history, and the browser marked as known for another year. */
async function succeeded(
  rt: Runtime,
  config: Config,
  context: AttemptContext,
  device: Device,
  settle: Promise<void>,
  overall: OverallState,
  method: Method,
): Promise<SignInResult> {
  const [setCookies] = await Promise.all([
    rememberDevice(config, device.cookieId, rt.now()),
    settle,
    recordAttempt(rt, context, method),
    // The password, from a browser that never signed in before: worth the owner's attention.
    method === "password" && device.source.device === undefined
      ? context.emit({ type: "new-device-sign-in", device: deviceLabel(context.userAgent ?? "") })
      : undefined,
  ]);
  return { ok: true, method, knownDevice: device.source.device !== undefined, setCookies, overall };
}

/** A wrong credential (its throttle entries are the failure count), recorded; alerted past the overall limit. */
async function failed(rt: Runtime, context: AttemptContext, method: Method, overall: OverallState) {
  await recordAttempt(rt, context, method, method);
  if (overall === "engaged") await context.emit({ type: "throttle-engaged" });
  return { ok: false as const, reason: method, overall };
}

/** An attempt checked (or a session's approval), for the sign-in history. */
export function recordAttempt(
  rt: Runtime,
  context: AttemptContext,
  method: SignInEventView["method"],
  failure?: SignInFailure,
): Promise<void> {
  const attempt = {
    at: rt.now(),
    ip: context.ip,
    where: context.where,
    method,
    ...(context.clientId ? { clientId: context.clientId } : {}),
  };
  return context.emit({ type: "sign-in", attempt, ...(failure ? { failure } : {}) });
}

/** "sign-in" starts something; "confirm" re-checks a signed-in owner before a sensitive change
 * (adding or removing a passkey), where the password is accepted even with PASSWORD_LOGIN=off. */
type Purpose = "sign-in" | "confirm";

async function checkPassword(
  rt: Runtime,
  config: Config,
  password: string,
  context: AttemptContext,
  purpose: Purpose,
): Promise<SignInResult> {
  // An empty password is nobody's guess (a session that ended while the page was open).
  if (password === "") return { ok: false, reason: "empty" };
  const off =
    purpose === "sign-in" && !config.passwordLogin && !passwordLoginAllowed(false, await listPasskeys(rt.store));
  // The throttle comes before anything is recorded, on every path. A password that is off is
  // never checked, so it guesses nothing: it counts against its address only (against floods).
  const device = await deviceOf(config, context, rt.now());
  const verdict = await beginAttempt(rt.store, device.source, rt.now(), off ? "address" : "overall");
  if (!verdict.allowed) return refused(context, verdict, "password");
  if (off) {
    await recordAttempt(rt, context, "password", "password-off");
    return { ok: false, reason: "password-off", overall: verdict.overall };
  }
  if (!(await verifyPassword(password, config.password))) return failed(rt, context, "password", verdict.overall);
  const settle = attemptSucceeded(rt.store, verdict.attempt, rt.now());
  return succeeded(rt, config, context, device, settle, verdict.overall, "password");
}

/** A valid passkey answer cannot be guessed, so the throttle never holds one back (junk from the
 * owner's own address cannot lock their passkey out). What cannot be the owner's is refused with
 * nothing written; only a failed answer naming a registered passkey on a genuine ticket is
 * counted, as a wrong password is, and recorded (docs/security.md). */
async function checkPasskey(
  rt: Runtime,
  config: Config,
  ticket: string,
  response: string,
  context: AttemptContext,
): Promise<SignInResult> {
  const now = rt.now();
  const answer = await passkeyAnswer(config, await listPasskeys(rt.store), { ticket, response }, now);
  if (!answer) return { ok: false, reason: "passkey" };
  const device = await deviceOf(config, context, now);
  // The WebAuthn library (the heaviest thing this server uses) loads here, on use (webauthn.ts).
  const verified = await verifyAuthentication(rt.store, config, answer, now);
  if (verified) {
    await recordPasskeyUse(rt.store, verified.passkey.id, verified.counter, now);
    const settle = sourceSucceeded(rt.store, device.source);
    return succeeded(rt, config, context, device, settle, "not-counted", "passkey");
  }
  const verdict = await beginAttempt(rt.store, device.source, rt.now(), "overall");
  if (!verdict.allowed) return refused(context, verdict, "passkey");
  return failed(rt, context, "passkey", verdict.overall);
}

export async function signInOwner(
  rt: Runtime,
  config: Config,
  credential: OwnerCredential,
  context: AttemptContext,
  purpose: Purpose = "sign-in",
): Promise<SignInResult> {
  return credential.method === "password"
    ? checkPassword(rt, config, credential.password, context, purpose)
    : checkPasskey(rt, config, credential.ticket, credential.response, context);
}

/** The credential a form carries: a passkey answer when there is one, else the password. */
export function credentialFrom(form: Fields<"password" | "passkey_ticket" | "passkey_response">): OwnerCredential {
  const response = form.get("passkey_response");
  if (response) return { method: "passkey", ticket: form.get("passkey_ticket") ?? "", response };
  return { method: "password", password: form.get("password") ?? "" };
}

/** Held back by the guessing throttle, in the words every sign-in form shows. When the overall
 * limit held it back, the owner is told the ways round it. A passkey answer is held back only
 * after it failed: a passkey registered here still signs in. */
export function throttled(
  retryAfterSeconds: number,
  overall: OverallState = "not-counted",
  method: Method = "password",
  busy = false,
): TooManyAttempts {
  return new TooManyAttempts(throttledWords(retryAfterSeconds, overall, method, busy), retryAfterSeconds);
}

function throttledWords(retryAfterSeconds: number, overall: OverallState, method: Method, busy: boolean): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  const wait = `try again in ${minutes} minute${minutes === 1 ? "" : "s"}`;
  // `busy`: no limit was reached, the attempt's counter kept changing under others sent at that moment.
  if (busy)
    return `Several sign-in attempts reached this site at the same moment, so this one was not checked: try again in ${retryAfterSeconds} seconds.`;
  if (method === "passkey")
    return `That passkey was not accepted, and many passkey answers have failed here lately: use a passkey registered on this site, or ${wait}.`;
  if (overall === "engaged")
    return `Many wrong passwords have been tried here lately, so a browser that has not signed in before gets one try a minute: ${wait}, or sign in with a passkey or on a device you have signed in on before.`;
  return `Too many wrong passwords. For your safety, signing in is paused: ${wait}.`;
}

/** A failed sign-in as the console's API refuses it. */
export function refusalFor(result: Exclude<SignInResult, { ok: true }>): AnsweredError {
  if (result.reason === "throttled")
    return throttled(result.retryAfterSeconds, result.overall, result.method, result.busy);
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

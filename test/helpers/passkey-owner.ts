// An owner with a registered passkey (a software authenticator), and the passkey ceremonies as
// the console's page runs them, for the attack catalogue's passkey races and lock-outs.
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { expect } from "vitest";
import { consoleSignIn, passkeysPost } from "./console.ts";
import { TEST_PASSWORD } from "./env.ts";
import { CONSOLE_IP } from "./requests.ts";
import type { TestRuntime } from "./runtime.ts";
import { createSoftAuthenticator, type CeremonyOverrides, type SoftAuthenticator } from "./soft-authenticator.ts";

interface Ceremony<T> {
  options: T;
  ticket: string;
}

/** Registers the authenticator from a console session (the password asked again). */
export async function registerPasskey(
  rt: TestRuntime,
  cookie: string,
  authenticator = createSoftAuthenticator(),
): Promise<SoftAuthenticator> {
  const started = await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie });
  expect(started.status).toBe(200);
  const { options, ticket } = (await started.json()) as Ceremony<PublicKeyCredentialCreationOptionsJSON>;
  const finished = await passkeysPost(
    rt,
    "/registration",
    { ticket, response: JSON.stringify(authenticator.register(options)), name: "Laptop" },
    { cookie },
  );
  expect(finished.status).toBe(200);
  return authenticator;
}

/** A fresh ticket and its options, as the sign-in page or console asks for them. */
export async function authenticationOptions(rt: TestRuntime): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
  const response = await passkeysPost(rt, "/authentication-options", {});
  expect(response.status).toBe(200);
  return (await response.json()) as Ceremony<PublicKeyCredentialRequestOptionsJSON>;
}

/** The ticket and the authenticator's answer, as the forms send them. */
export async function passkeyAnswer(
  rt: TestRuntime,
  authenticator: SoftAuthenticator,
  overrides?: CeremonyOverrides,
): Promise<{ ticket: string; response: string }> {
  const { options, ticket } = await authenticationOptions(rt);
  return { ticket, response: JSON.stringify(authenticator.authenticate(options, overrides)) };
}

/** The console's passkey sign-in from an address. */
export function passkeySignIn(
  rt: TestRuntime,
  answer: { ticket: string; response: string },
  ip = CONSOLE_IP,
): Promise<Response> {
  return passkeysPost(rt, "/sign-in", { ...answer, remember: "false" }, { ip });
}

/** The owner of `rt` registers a passkey from a password session. */
export async function withPasskey(
  rt: TestRuntime,
  authenticator = createSoftAuthenticator(),
): Promise<{ cookie: string; authenticator: SoftAuthenticator }> {
  const cookie = await consoleSignIn(rt);
  return { cookie, authenticator: await registerPasskey(rt, cookie, authenticator) };
}

/** What anyone can make without the owner's authenticator: a genuine ticket (the options are
 * public) and an answer naming the owner's registered passkey (its id is in the options), signed
 * by another key. It is verified, fails, and counts as a failure. */
export async function forgedAnswer(rt: TestRuntime, realId: string): Promise<{ ticket: string; response: string }> {
  const forged = await passkeyAnswer(rt, createSoftAuthenticator());
  return {
    ticket: forged.ticket,
    response: forged.response
      .replace(/"id":"[^"]+"/, `"id":"${realId}"`)
      .replace(/"rawId":"[^"]+"/, `"rawId":"${realId}"`),
  };
}

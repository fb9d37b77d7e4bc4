// Passkey ceremonies, with SimpleWebAuthn. Nothing is stored between the options and the
// verification: the challenge travels in a signed ticket of its own type (5 minutes, one
// purpose), and is marked used when it is verified, so a captured answer cannot be replayed.
// A sign-in's answer is looked at first without storage (its shape, its ticket's signature, the
// passkey it names), so that junk is refused before anything is written.
// The library is heavy (CBOR, ASN.1): it loads with the first ceremony, never at cold start.
// This module itself is light and imported statically: a dynamic import of one of our modules
// makes esbuild split the code it shares with the handler into chunks that load at cold start.
import { createHash } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Config } from "../platform/config.ts";
import type { PasskeyRecord } from "./passkey-records.ts";
import { RECORDS } from "../platform/records.ts";
import type { KeyValueStore } from "../platform/store.ts";
import { signTyped, verifyTyped, type JwtKind } from "../crypto/typed-jwt.ts";
import { loadOnce } from "../core/load-once.ts";
import { TICKET_TTL_SECONDS } from "../core/policy.ts";
import { jsonOf } from "../core/json.ts";

const simpleWebAuthn = loadOnce(() => import("@simplewebauthn/server"));

export const TICKET_TYPE = "indieauth-webauthn+jwt";

type Ceremony = "registration" | "authentication";

/** The relying party's id: the base URL's host name (WebAuthn RP IDs carry no scheme or port). */
const rpId = (config: Config) => new URL(config.baseUrl).hostname;

/** What an answer must match: its ticket's challenge, this server, and a verified user. */
const expected = (config: Config, challenge: string) => ({
  expectedChallenge: challenge,
  expectedOrigin: config.baseUrl,
  expectedRPID: rpId(config),
  requireUserVerification: true,
});

/** A stable, non-secret user handle for the one owner. */
function ownerHandle(me: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash("sha256").update(`indieauth-owner:${me}`).digest().subarray(0, 16));
}

function ticketKind(config: Config): JwtKind {
  return { key: config.keys.webauthn, issuer: config.issuer, typ: TICKET_TYPE, audience: `${config.issuer}webauthn` };
}

function signTicket(config: Config, ceremony: Ceremony, challenge: string, now: number): Promise<string> {
  return signTyped({ challenge, ceremony }, ticketKind(config), now, now + TICKET_TTL_SECONDS * 1000);
}

interface TicketChallenge {
  challenge: string;
  expiresAt: number;
}

/** The ticket's challenge if it is genuine, current and of this ceremony (no storage). */
async function readTicket(
  config: Config,
  ticket: string,
  ceremony: Ceremony,
  now: number,
): Promise<TicketChallenge | null> {
  const payload = await verifyTyped<{ challenge: unknown; ceremony: unknown }>(ticket, ticketKind(config), now, 2048);
  if (!payload || typeof payload.challenge !== "string" || payload.ceremony !== ceremony) return null;
  return { challenge: payload.challenge, expiresAt: payload.exp! * 1000 };
}

/** Marks the challenge used: true for the first use only (a write-if-new, so two uses at the
 * same moment cannot both win). */
function useChallenge(store: KeyValueStore, { challenge, expiresAt }: TicketChallenge, now: number): Promise<boolean> {
  return store.setIfNew(RECORDS.usedChallenge.key(challenge), { usedAt: now, expiresAt });
}

function parseResponse<T>(raw: string): T | null {
  if (raw.length > 32_768) return null;
  const value = jsonOf(raw);
  if (typeof value !== "object" || value === null || typeof (value as { id?: unknown }).id !== "string") return null;
  return typeof (value as { response?: unknown }).response === "object" ? (value as T) : null;
}

/** The browser reports transports; only known names are kept, since they are sent back to
 * every browser in the options, where anything else could break the ceremony. */
const TRANSPORTS = new Set(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);
function knownTransports(value: unknown): string[] {
  return Array.isArray(value)
    ? [...new Set(value.filter((t): t is string => typeof t === "string" && TRANSPORTS.has(t)))]
    : [];
}

const fromBase64Url = (value: string) => new Uint8Array(Buffer.from(value, "base64url"));
const descriptor = (p: PasskeyRecord) => ({ id: p.id, ...(p.transports ? { transports: p.transports } : {}) });

export async function registrationOptions(
  config: Config,
  existing: readonly PasskeyRecord[],
  now: number,
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; ticket: string }> {
  const options = await (
    await simpleWebAuthn()
  ).generateRegistrationOptions({
    rpName: config.profile.name ?? new URL(config.me).host,
    rpID: rpId(config),
    userName: new URL(config.me).host,
    userDisplayName: config.profile.name ?? config.me,
    userID: ownerHandle(config.me),
    attestationType: "none",
    // The same authenticator cannot be registered twice.
    excludeCredentials: existing.map(descriptor),
    // A passkey replaces the password, so it must verify the person (PIN, fingerprint, face).
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
  });
  return { options, ticket: await signTicket(config, "registration", options.challenge, now) };
}

/** The new passkey, or null when the answer does not verify. */
export async function verifyRegistration(
  store: KeyValueStore,
  config: Config,
  input: { ticket: string; response: string; name: string },
  now: number,
): Promise<PasskeyRecord | null> {
  const response = parseResponse<RegistrationResponseJSON>(input.response);
  if (!response) return null;
  // Marked used before it is verified: each ticket verifies at most once.
  const ticket = await readTicket(config, input.ticket, "registration", now);
  if (!ticket || !(await useChallenge(store, ticket, now))) return null;
  // Outside the try: a library that fails to load is an error, not a wrong answer.
  const { verifyRegistrationResponse } = await simpleWebAuthn();
  try {
    const result = await verifyRegistrationResponse({ response, ...expected(config, ticket.challenge) });
    if (!result.verified) return null;
    const { credential, credentialDeviceType, credentialBackedUp } = result.registrationInfo;
    const passkey: PasskeyRecord = {
      id: credential.id,
      name: input.name,
      publicKey: Buffer.from(credential.publicKey).toString("base64url"),
      counter: credential.counter,
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      createdAt: now,
    };
    const transports = knownTransports(credential.transports);
    if (transports.length > 0) passkey.transports = transports;
    return passkey;
  } catch {
    return null;
  }
}

export async function authenticationOptions(
  config: Config,
  passkeys: readonly PasskeyRecord[],
  now: number,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; ticket: string }> {
  const options = await (
    await simpleWebAuthn()
  ).generateAuthenticationOptions({
    rpID: rpId(config),
    // Listing the keys lets non-discoverable ones sign in too; their ids are not secrets.
    allowCredentials: passkeys.map(descriptor),
    userVerification: "required",
  });
  return { options, ticket: await signTicket(config, "authentication", options.challenge, now) };
}

/** A sign-in's answer worth verifying: well-formed, on a genuine current authentication ticket,
 * naming a registered passkey. */
interface PasskeyAnswer {
  response: AuthenticationResponseJSON;
  passkey: PasskeyRecord;
  ticket: TicketChallenge;
}

/** The answer worth verifying, or null for one that cannot be the owner's (junk, a forged or
 * expired ticket, a passkey not registered here): decided without storage or the WebAuthn library. */
export async function passkeyAnswer(
  config: Config,
  passkeys: readonly PasskeyRecord[],
  input: { ticket: string; response: string },
  now: number,
): Promise<PasskeyAnswer | null> {
  const response = parseResponse<AuthenticationResponseJSON>(input.response);
  const passkey = response && passkeys.find((p) => p.id === response.id);
  if (!response || !passkey) return null;
  const ticket = await readTicket(config, input.ticket, "authentication", now);
  return ticket ? { response, passkey, ticket } : null;
}

/** The passkey that signed, with its new counter, or null when the answer does not verify or
 * its ticket was used before. The ticket is used up only by an answer that verifies: a wrong
 * one leaves it for the owner's. */
export async function verifyAuthentication(
  store: KeyValueStore,
  config: Config,
  answer: PasskeyAnswer,
  now: number,
): Promise<{ passkey: PasskeyRecord; counter: number } | null> {
  const { response, passkey, ticket } = answer;
  // Outside the try: a library that fails to load is an error, not a wrong answer.
  const { verifyAuthenticationResponse } = await simpleWebAuthn();
  let counter: number;
  try {
    const result = await verifyAuthenticationResponse({
      response,
      ...expected(config, ticket.challenge),
      credential: { ...descriptor(passkey), publicKey: fromBase64Url(passkey.publicKey), counter: passkey.counter },
    });
    if (!result.verified) return null;
    counter = result.authenticationInfo.newCounter;
  } catch {
    return null;
  }
  return (await useChallenge(store, ticket, now)) ? { passkey, counter } : null;
}

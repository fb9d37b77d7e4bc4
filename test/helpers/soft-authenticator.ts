// A software passkey for tests: an ES256 key pair and a credential id, answering registration
// and authentication options with the JSON a browser would send (RegistrationResponseJSON,
// AuthenticationResponseJSON), built from node:crypto alone so that the server's WebAuthn
// checks are exercised against bytes it did not produce itself. Unlike a browser it obeys
// the test, not the options: it ignores excludeCredentials and allowCredentials, and each call
// can lie about origin, RP ID, user verification or counter, which is what an attacker with a
// stolen or scripted authenticator could do.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";

// --- A minimal CBOR encoder (RFC 8949), only the types an attestation object needs ---------

type CborValue = number | string | Uint8Array | Map<number | string, CborValue>;

/** A major type and its argument, always in the shortest form: the server decodes the COSE key,
 * re-encodes it and uses that length to walk authData, so a longer form would misalign it. */
function cborHead(major: number, argument: number): Buffer {
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x10000) return Buffer.from([type | 25, argument >> 8, argument & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = type | 26;
  head.writeUInt32BE(argument, 1);
  return head;
}

export function cbor(value: CborValue): Buffer {
  if (typeof value === "number") return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  // Insertion order is kept: COSE keys are conventionally written 1, 3, -1, -2, -3.
  const parts = [cborHead(5, value.size)];
  for (const [key, item] of value) parts.push(cbor(key), cbor(item));
  return Buffer.concat(parts);
}

// --- The authenticator ----------------------------------------------------------------------

const FLAG_UP = 0x01; // user present
const FLAG_UV = 0x04; // user verified
const FLAG_BE = 0x08; // backup eligible
const FLAG_BS = 0x10; // backed up
const FLAG_AT = 0x40; // attested credential data follows

const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString("base64url");

export interface SoftAuthenticatorOptions {
  /** Where the "browser" says the ceremony ran. */
  origin?: string;
  rpId?: string;
  /** Whether the UV flag is set (a PIN or biometric was checked). */
  userVerified?: boolean;
  /** "increment": +1 per assertion, like a security key; "zero": always 0, like most synced passkeys. */
  counter?: "increment" | "zero";
  /** Sets BE and BS, as a synced (multi-device) passkey does. */
  backedUp?: boolean;
}

/** One call's lies, on top of the authenticator's settings. */
export interface CeremonyOverrides {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
  /** The clientData type, e.g. "webauthn.get" in a registration. */
  type?: string;
  /** The signature counter to report (the stored one is left alone). */
  counter?: number;
  /** Signs with this key instead of the credential's own. */
  signWith?: KeyObject;
}

export interface SoftAuthenticator {
  /** The credential id, base64url (what the server stores and lists). */
  readonly credentialId: string;
  readonly privateKey: KeyObject;
  /** The signature counter as last reported; tests may set it. */
  signCount: number;
  register(options: PublicKeyCredentialCreationOptionsJSON, overrides?: CeremonyOverrides): RegistrationResponseJSON;
  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    overrides?: CeremonyOverrides,
  ): AuthenticationResponseJSON;
}

export function createSoftAuthenticator(settings: SoftAuthenticatorOptions = {}): SoftAuthenticator {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const credentialId = randomBytes(32);
  const jwk = publicKey.export({ format: "jwk" });
  // COSE_Key (RFC 9053): kty EC2 (1: 2), alg ES256 (3: -7), crv P-256 (-1: 1), x (-2), y (-3).
  const coseKey = new Map<number, CborValue>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x!, "base64url")],
    [-3, Buffer.from(jwk.y!, "base64url")],
  ]);
  let userHandle: string | undefined;

  function clientData(type: string, challenge: string, overrides: CeremonyOverrides): Buffer {
    // Key order as browsers write it; the server hashes these exact bytes.
    return Buffer.from(
      JSON.stringify({
        type,
        challenge,
        origin: overrides.origin ?? settings.origin ?? "https://auth.jane.example",
        crossOrigin: false,
      }),
    );
  }

  function authData(overrides: CeremonyOverrides, counter: number, attested?: Buffer): Buffer {
    let flags = FLAG_UP;
    if (overrides.userVerified ?? settings.userVerified ?? true) flags |= FLAG_UV;
    if (settings.backedUp) flags |= FLAG_BE | FLAG_BS;
    if (attested) flags |= FLAG_AT;
    const counterBytes = Buffer.alloc(4);
    counterBytes.writeUInt32BE(counter);
    const rpIdHash = sha256(overrides.rpId ?? settings.rpId ?? "auth.jane.example");
    return Buffer.concat([rpIdHash, Buffer.from([flags]), counterBytes, ...(attested ? [attested] : [])]);
  }

  const authenticator: SoftAuthenticator = {
    credentialId: b64url(credentialId),
    privateKey,
    signCount: 0,

    register(options, overrides = {}) {
      userHandle = options.user.id;
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      // aaguid: 16 zero bytes, as authenticators send under attestation "none".
      const attested = Buffer.concat([Buffer.alloc(16), idLength, credentialId, cbor(coseKey)]);
      const data = authData(overrides, overrides.counter ?? authenticator.signCount, attested);
      const attestationObject = cbor(
        new Map<string, CborValue>([
          ["fmt", "none"],
          ["attStmt", new Map()],
          ["authData", data],
        ]),
      );
      return {
        id: authenticator.credentialId,
        rawId: authenticator.credentialId,
        type: "public-key",
        authenticatorAttachment: "platform",
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(clientData(overrides.type ?? "webauthn.create", options.challenge, overrides)),
          attestationObject: b64url(attestationObject),
          transports: ["internal"],
        },
      };
    },

    authenticate(options, overrides = {}) {
      if (overrides.counter === undefined && settings.counter !== "zero") authenticator.signCount += 1;
      const data = authData(
        overrides,
        overrides.counter ?? (settings.counter === "zero" ? 0 : authenticator.signCount),
      );
      const json = clientData(overrides.type ?? "webauthn.get", options.challenge, overrides);
      // The assertion signature (WebAuthn 6.3.3): over authData || SHA-256(clientDataJSON);
      // node signs EC keys in the DER form WebAuthn uses.
      const signature = sign("sha256", Buffer.concat([data, sha256(json)]), overrides.signWith ?? privateKey);
      return {
        id: authenticator.credentialId,
        rawId: authenticator.credentialId,
        type: "public-key",
        authenticatorAttachment: "platform",
        clientExtensionResults: {},
        response: {
          clientDataJSON: b64url(json),
          authenticatorData: b64url(data),
          signature: b64url(signature),
          ...(userHandle ? { userHandle } : {}),
        },
      };
    },
  };
  return authenticator;
}

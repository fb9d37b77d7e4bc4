// Passkeys, in-process against the real local Blobs server, with a software authenticator that
// answers as a browser would (and lies when told to): registering one from the console,
// signing in with one (console and app), and PASSWORD_LOGIN=off. Each test checks what the
// person or the client sees, and fails if the defence it names is taken away.
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { describe, expect, it } from "vitest";
import type { AccountOverview, LoginRequiredView } from "../../netlify/lib/pages/account-view.ts";
import { listPasskeys } from "../../netlify/lib/owner/passkey-records.ts";
import { THROTTLE_POLICY } from "../../netlify/lib/core/policy.ts";
import { consoleGet, consolePost, consoleSignIn, cookieFrom, passkeysPost } from "../helpers/console.ts";
import { approve, authorize, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, decodePayload, offerIn, REDIRECT_URI, redirectParams } from "../helpers/requests.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { START_TIME, testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import {
  createSoftAuthenticator,
  type CeremonyOverrides,
  type SoftAuthenticator,
} from "../helpers/soft-authenticator.ts";
import { storeSnapshot } from "../helpers/attack-kit.ts";
import { forgedAnswer } from "../helpers/passkey-owner.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

interface Ceremony<T> {
  options: T;
  ticket: string;
}

const MINUTE = 60 * 1000;

async function registrationOptions(
  rt: TestRuntime,
  cookie: string,
  password = TEST_PASSWORD,
): Promise<Ceremony<PublicKeyCredentialCreationOptionsJSON>> {
  const response = await passkeysPost(rt, "/registration-options", { password }, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as Ceremony<PublicKeyCredentialCreationOptionsJSON>;
}

function finishRegistration(
  rt: TestRuntime,
  cookie: string,
  ticket: string,
  answer: RegistrationResponseJSON,
  name = "Laptop",
  crossSite = false,
): Promise<Response> {
  return passkeysPost(rt, "/registration", { ticket, response: JSON.stringify(answer), name }, { cookie, crossSite });
}

/** The whole registration, expected to succeed. */
async function registerPasskey(
  rt: TestRuntime,
  cookie: string,
  authenticator = createSoftAuthenticator(),
  password = TEST_PASSWORD,
): Promise<SoftAuthenticator> {
  const { options, ticket } = await registrationOptions(rt, cookie, password);
  const response = await finishRegistration(rt, cookie, ticket, authenticator.register(options));
  expect(response.status).toBe(200);
  return authenticator;
}

async function authenticationOptions(rt: TestRuntime): Promise<Ceremony<PublicKeyCredentialRequestOptionsJSON>> {
  const response = await passkeysPost(rt, "/authentication-options", {});
  expect(response.status).toBe(200);
  return (await response.json()) as Ceremony<PublicKeyCredentialRequestOptionsJSON>;
}

function passkeySignIn(rt: TestRuntime, ticket: string, answer: AuthenticationResponseJSON): Promise<Response> {
  return passkeysPost(rt, "/sign-in", { ticket, response: JSON.stringify(answer), remember: "true" });
}

/** Fresh options, the authenticator's answer, the console's sign-in. */
async function signInWith(
  rt: TestRuntime,
  authenticator: SoftAuthenticator,
  overrides?: CeremonyOverrides,
): Promise<Response> {
  const { options, ticket } = await authenticationOptions(rt);
  return passkeySignIn(rt, ticket, authenticator.authenticate(options, overrides));
}

/** A fresh store whose owner has registered one passkey; returns the password session's cookie. */
async function ownerWithPasskey(env: Record<string, string> = {}, authenticator = createSoftAuthenticator()) {
  const rt = await testRuntime({ env });
  const cookie = await consoleSignIn(rt);
  await registerPasskey(rt, cookie, authenticator);
  return { rt, cookie, authenticator };
}

async function overview(rt: TestRuntime, cookie: string): Promise<AccountOverview> {
  const response = await consoleGet(rt, { cookie });
  expect(response.status).toBe(200);
  return (await response.json()) as AccountOverview;
}

async function expectRefused(response: Response, status: number, error: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get("set-cookie")).toBeNull();
  expect(await response.json()).toMatchObject({ error });
}

function fragmentOf(response: Response): URLSearchParams {
  return new URLSearchParams((response.headers.get("location") ?? "").split("#")[1]);
}

describe("registering a passkey needs a session, the password again, and this site", () => {
  it("without a session: 401 login_required, at both steps", async () => {
    const rt = await testRuntime();
    await expectRefused(
      await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }),
      401,
      "login_required",
    );

    // A valid ticket and answer, taken from a signed-in page, are still refused without the cookie.
    const cookie = await consoleSignIn(rt);
    const { options, ticket } = await registrationOptions(rt, cookie);
    const answer = createSoftAuthenticator().register(options);
    await expectRefused(await finishRegistration(rt, "", ticket, answer), 401, "login_required");
    expect(await listPasskeys(rt.store)).toEqual([]);
  });

  it("with a session but the wrong password: 401 wrong_credentials and no options", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const response = await passkeysPost(rt, "/registration-options", { password: "not the password" }, { cookie });
    expect(response.status).toBe(401);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ error: "wrong_credentials" });
    expect(body).not.toHaveProperty("ticket");
    expect(body).not.toHaveProperty("options");
  });

  it("cross-site: 403 at both steps, and nothing is stored", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    await expectRefused(
      await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie, crossSite: true }),
      403,
      "access_denied",
    );

    const { options, ticket } = await registrationOptions(rt, cookie);
    const answer = createSoftAuthenticator().register(options);
    await expectRefused(await finishRegistration(rt, cookie, ticket, answer, "Laptop", true), 403, "access_denied");
    expect(await listPasskeys(rt.store)).toEqual([]);
    // The answer itself was good: the same one, from this site, is accepted.
    expect((await finishRegistration(rt, cookie, ticket, answer)).status).toBe(200);
  });

  it("options name this site as RP, require user verification, and come with a signed ticket", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const { options, ticket } = await registrationOptions(rt, cookie);
    expect(options.rp.id).toBe("auth.jane.example");
    expect(options.authenticatorSelection?.userVerification).toBe("required");
    expect(options.pubKeyCredParams.map((p) => p.alg)).toContain(-7);
    expect(options.excludeCredentials).toEqual([]);
    const [header] = ticket.split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toMatchObject({ typ: "indieauth-webauthn+jwt" });
    expect(decodePayload(ticket)).toMatchObject({ challenge: options.challenge, ceremony: "registration" });
  });

  it("the authenticator's answer registers the passkey under the name given, and the console lists it", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const authenticator = createSoftAuthenticator({ backedUp: true });
    const { options, ticket } = await registrationOptions(rt, cookie);
    const response = await finishRegistration(rt, cookie, ticket, authenticator.register(options), "  Jane's phone ");
    expect(response.status).toBe(200);
    const expected = { id: authenticator.credentialId, name: "Jane's phone", createdAt: START_TIME, backedUp: true };
    expect(await response.json()).toEqual({ ok: true, passkey: expected });
    expect((await overview(rt, cookie)).passkeys).toEqual([expected]);
  });

  it("a ticket registers once: a second answer to it is refused (400), one passkey is stored", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const { options, ticket } = await registrationOptions(rt, cookie);
    const first = createSoftAuthenticator();
    expect((await finishRegistration(rt, cookie, ticket, first.register(options))).status).toBe(200);
    // Another authenticator, so that only the ticket's single use can stop it.
    await expectRefused(
      await finishRegistration(rt, cookie, ticket, createSoftAuthenticator().register(options)),
      400,
      "invalid_request",
    );
    expect((await listPasskeys(rt.store)).map((p) => p.id)).toEqual([first.credentialId]);
  });

  it.each<[string, CeremonyOverrides]>([
    ["made for another origin", { origin: "https://evil.example" }],
    ["made for another RP ID", { rpId: "evil.example" }],
    ["made for a parent domain's RP ID", { rpId: "jane.example" }],
    ["without user verification", { userVerified: false }],
    ["of the wrong ceremony type (webauthn.get)", { type: "webauthn.get" }],
  ])("an answer %s is refused (400), nothing stored", async (_name, overrides) => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const { options, ticket } = await registrationOptions(rt, cookie);
    await expectRefused(
      await finishRegistration(rt, cookie, ticket, createSoftAuthenticator().register(options, overrides)),
      400,
      "invalid_request",
    );
    expect(await listPasskeys(rt.store)).toEqual([]);
  });

  it("an authentication ticket cannot register (400)", async () => {
    const { rt, cookie } = await ownerWithPasskey();
    const { options, ticket } = await authenticationOptions(rt);
    const registration = await registrationOptions(rt, cookie);
    const answer = createSoftAuthenticator().register({ ...registration.options, challenge: options.challenge });
    await expectRefused(await finishRegistration(rt, cookie, ticket, answer), 400, "invalid_request");
    expect(await listPasskeys(rt.store)).toHaveLength(1);
  });

  it("a registration ticket cannot sign in (401)", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    const registration = await registrationOptions(rt, cookie);
    const { options } = await authenticationOptions(rt);
    const answer = authenticator.authenticate({ ...options, challenge: registration.options.challenge });
    await expectRefused(await passkeySignIn(rt, registration.ticket, answer), 401, "wrong_credentials");
  });

  it("a ticket older than 5 minutes is refused (400)", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const { options, ticket } = await registrationOptions(rt, cookie);
    rt.clock.advance(6 * MINUTE);
    await expectRefused(
      await finishRegistration(rt, cookie, ticket, createSoftAuthenticator().register(options)),
      400,
      "invalid_request",
    );
    expect(await listPasskeys(rt.store)).toEqual([]);
  });

  it("the same authenticator cannot be registered twice: the options exclude it, the server refuses it (400)", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    const { options, ticket } = await registrationOptions(rt, cookie);
    expect(options.excludeCredentials).toEqual([
      { id: authenticator.credentialId, type: "public-key", transports: ["internal"] },
    ]);
    // A browser would stop here; an attacker's script need not.
    await expectRefused(
      await finishRegistration(rt, cookie, ticket, authenticator.register(options)),
      400,
      "invalid_request",
    );
    expect(await listPasskeys(rt.store)).toHaveLength(1);
  });
});

describe("signing in with a passkey", () => {
  it("junk (not an answer, a forged ticket, a registration ticket, a passkey not registered here) is refused (401) and writes nothing", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    const registration = await registrationOptions(rt, cookie);
    const before = await storeSnapshot(rt.store);
    const { options, ticket } = await authenticationOptions(rt);
    const answers: [string, string][] = [
      ["x", "{}"],
      ["x", "not json"],
      ["x", JSON.stringify(authenticator.authenticate(options))],
      [
        registration.ticket,
        JSON.stringify(authenticator.authenticate({ ...options, challenge: registration.options.challenge })),
      ],
      [ticket, JSON.stringify(createSoftAuthenticator().authenticate(options))],
    ];
    for (const [junkTicket, response] of answers)
      await expectRefused(
        await passkeysPost(rt, "/sign-in", { ticket: junkTicket, response }, { ip: "192.0.2.99" }),
        401,
        "wrong_credentials",
      );
    expect(await storeSnapshot(rt.store)).toEqual(before);
    // The ticket was not used up by the junk sent with it: the owner's answer to it still signs in.
    expect((await passkeySignIn(rt, ticket, authenticator.authenticate(options))).status).toBe(200);
  });

  it("answers that name the registered passkey on a genuine ticket but fail to verify count: after five from one address the next is 429, worded for passkeys, and the history stops growing", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    const forged = async () =>
      passkeysPost(
        rt,
        "/sign-in",
        { ...(await forgedAnswer(rt, authenticator.credentialId)), remember: "false" },
        { ip: "192.0.2.99" },
      );
    for (let i = 0; i < THROTTLE_POLICY.freeFailuresPerIp; i++) expect((await forged()).status).toBe(401);
    const events = (await rt.store.list(RECORDS.signInEvent.prefix)).length;
    for (let i = 0; i < 3; i++) {
      const response = await forged();
      expect(response.status).toBe(429);
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
      const { error_description: said } = (await response.json()) as { error_description: string };
      expect(said).toMatch(/passkey/);
      expect(said).not.toMatch(/password/);
    }
    expect(await rt.store.list(RECORDS.signInEvent.prefix)).toHaveLength(events);
  });

  it("keeps only known transport names from the browser's answer (they are sent back to every browser)", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const { options, ticket } = await registrationOptions(rt, cookie);
    const answer = createSoftAuthenticator().register(options);
    const tampered = {
      ...answer,
      response: { ...answer.response, transports: ["internal", "evil", 5, "usb", "internal"] },
    };
    expect((await finishRegistration(rt, cookie, ticket, tampered as unknown as RegistrationResponseJSON)).status).toBe(
      200,
    );
    expect((await authenticationOptions(rt)).options.allowCredentials?.[0]?.transports).toEqual(["internal", "usb"]);
  });

  it("authentication options: 400 while no passkey exists; then they list it and require user verification", async () => {
    const rt = await testRuntime();
    await expectRefused(await passkeysPost(rt, "/authentication-options", {}), 400, "invalid_request");

    const cookie = await consoleSignIn(rt);
    const authenticator = await registerPasskey(rt, cookie);
    const { options, ticket } = await authenticationOptions(rt);
    expect(options.rpId).toBe("auth.jane.example");
    expect(options.userVerification).toBe("required");
    expect(options.allowCredentials).toEqual([
      { id: authenticator.credentialId, type: "public-key", transports: ["internal"] },
    ]);
    expect(decodePayload(ticket)).toMatchObject({ challenge: options.challenge, ceremony: "authentication" });
  });

  it("authentication options are refused cross-site (403)", async () => {
    const { rt } = await ownerWithPasskey();
    await expectRefused(
      await passkeysPost(rt, "/authentication-options", {}, { crossSite: true }),
      403,
      "access_denied",
    );
  });

  it("console sign-in: 200 and a session cookie that opens the console; last use and history recorded", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    rt.clock.advance(MINUTE);
    const response = await signInWith(rt, authenticator);
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/^__Secure-indieauth_session=.+Max-Age=2592000/i);

    const view = await overview(rt, cookieFrom(response));
    expect(view.passkeys).toEqual([
      expect.objectContaining({ id: authenticator.credentialId, lastUsedAt: START_TIME + MINUTE }),
    ]);
    expect(view.devices.find((d) => d.current)).toMatchObject({ method: "passkey", persistent: true });
    expect(view.events[0]).toMatchObject({
      where: "account",
      method: "passkey",
      outcome: "success",
      at: START_TIME + MINUTE,
    });
  });

  // With a counter that stays 0 (most synced passkeys), only the ticket's single use stops a replay.
  it("replaying the same assertion (same ticket and answer) is refused: 401, no cookie", async () => {
    const { rt, authenticator } = await ownerWithPasskey({}, createSoftAuthenticator({ counter: "zero" }));
    const { options, ticket } = await authenticationOptions(rt);
    const answer = authenticator.authenticate(options);
    expect((await passkeySignIn(rt, ticket, answer)).status).toBe(200);
    await expectRefused(await passkeySignIn(rt, ticket, answer), 401, "wrong_credentials");
  });

  it("an assertion from an authenticator never registered is refused (401), and leaves nothing: it cannot be the owner's", async () => {
    const { rt, cookie } = await ownerWithPasskey();
    rt.clock.advance(MINUTE);
    await expectRefused(await signInWith(rt, createSoftAuthenticator()), 401, "wrong_credentials");
    expect((await overview(rt, cookie)).events[0]).toMatchObject({ outcome: "success" });
  });

  it("an assertion naming the registered passkey but signed by another key is refused (401), and recorded as a failure", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    rt.clock.advance(MINUTE);
    await expectRefused(
      await signInWith(rt, authenticator, { signWith: createSoftAuthenticator().privateKey }),
      401,
      "wrong_credentials",
    );
    expect((await overview(rt, cookie)).events[0]).toMatchObject({
      method: "passkey",
      outcome: "failure",
      reason: "passkey not accepted",
    });
  });

  it("an assertion signed with another key is refused (401)", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    const impostor = createSoftAuthenticator();
    await expectRefused(
      await signInWith(rt, authenticator, { signWith: impostor.privateKey }),
      401,
      "wrong_credentials",
    );
    // The registered key still works: the refusal was the signature's.
    expect((await signInWith(rt, authenticator)).status).toBe(200);
  });

  it("an assertion whose signed data was altered after signing is refused (401)", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    const { options, ticket } = await authenticationOptions(rt);
    const answer = authenticator.authenticate(options);
    // Flip the signature's last byte: still well-formed base64url, no longer a valid signature.
    const signature = Buffer.from(answer.response.signature, "base64url");
    signature[signature.length - 1]! ^= 0x01;
    const forged = { ...answer, response: { ...answer.response, signature: signature.toString("base64url") } };
    await expectRefused(await passkeySignIn(rt, ticket, forged), 401, "wrong_credentials");
  });

  it.each<[string, CeremonyOverrides]>([
    ["made for another origin", { origin: "https://evil.example" }],
    ["made for another RP ID", { rpId: "evil.example" }],
    ["without user verification", { userVerified: false }],
    ["of the wrong ceremony type (webauthn.create)", { type: "webauthn.create" }],
  ])("an assertion %s is refused (401)", async (_name, overrides) => {
    const { rt, authenticator } = await ownerWithPasskey();
    await expectRefused(await signInWith(rt, authenticator, overrides), 401, "wrong_credentials");
  });

  it("an authentication ticket older than 5 minutes is refused (401)", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    const { options, ticket } = await authenticationOptions(rt);
    rt.clock.advance(6 * MINUTE);
    await expectRefused(await passkeySignIn(rt, ticket, authenticator.authenticate(options)), 401, "wrong_credentials");
  });

  // SimpleWebAuthn refuses a counter that is not above the stored one once either is non-zero
  // (equal included); a counter that is always 0 (most synced passkeys) is accepted every time.
  it("a signature counter that goes backwards, or repeats, is refused (401): a cloned authenticator", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    expect((await signInWith(rt, authenticator)).status).toBe(200); // counter 1
    expect((await signInWith(rt, authenticator)).status).toBe(200); // counter 2
    expect((await listPasskeys(rt.store))[0]?.counter).toBe(2);
    await expectRefused(await signInWith(rt, authenticator, { counter: 1 }), 401, "wrong_credentials");
    await expectRefused(await signInWith(rt, authenticator, { counter: 2 }), 401, "wrong_credentials");
    await expectRefused(await signInWith(rt, authenticator, { counter: 0 }), 401, "wrong_credentials");
    expect((await signInWith(rt, authenticator, { counter: 7 })).status).toBe(200);
    expect((await listPasskeys(rt.store))[0]?.counter).toBe(7);
  });

  it("a passkey whose counter is always 0 signs in every time", async () => {
    const { rt, authenticator } = await ownerWithPasskey({}, createSoftAuthenticator({ counter: "zero" }));
    for (let i = 0; i < 3; i++) expect((await signInWith(rt, authenticator)).status).toBe(200);
  });

  it("app sign-in: the passkey's answer in the approve form, with no password, sends the client a code", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    const request = await signedRequest(rt);
    const { options, ticket } = await authenticationOptions(rt);
    rt.clock.advance(1000);
    const response = await approve(rt, request, {
      password: "",
      fields: { passkey_ticket: ticket, passkey_response: JSON.stringify(authenticator.authenticate(options)) },
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);
    expect((await overview(rt, cookie)).events[0]).toMatchObject({
      where: "authorization",
      method: "passkey",
      outcome: "success",
    });
  });

  it("app sign-in with a bad assertion: back to the sign-in page with error=passkey, no code", async () => {
    const { rt, authenticator } = await ownerWithPasskey();
    const request = await signedRequest(rt);
    const { options, ticket } = await authenticationOptions(rt);
    const forged = authenticator.authenticate(options, { signWith: createSoftAuthenticator().privateKey });
    const response = await approve(rt, request, {
      password: "",
      fields: { passkey_ticket: ticket, passkey_response: JSON.stringify(forged) },
    });
    expect(response.status).toBe(303);
    const fragment = fragmentOf(response);
    expect(response.headers.get("location")).toMatch(/^\/indieauth\/sign-in\/#/);
    expect(fragment.get("request")).toBe(request);
    expect(fragment.get("error")).toBe("passkey");
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("app sign-in: an assertion already used at the console is refused there too", async () => {
    const { rt, authenticator } = await ownerWithPasskey({}, createSoftAuthenticator({ counter: "zero" }));
    const { options, ticket } = await authenticationOptions(rt);
    const answer = authenticator.authenticate(options);
    expect((await passkeySignIn(rt, ticket, answer)).status).toBe(200);
    const response = await approve(rt, await signedRequest(rt), {
      password: "",
      fields: { passkey_ticket: ticket, passkey_response: JSON.stringify(answer) },
    });
    expect(response.status).toBe(303);
    expect(fragmentOf(response).get("error")).toBe("passkey");
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });
});

describe("PASSWORD_LOGIN=off", () => {
  const OFF = { PASSWORD_LOGIN: "off" };

  it("with no passkey yet, the password still signs in (the owner cannot be locked out)", async () => {
    const rt = await testRuntime({ env: OFF });
    const unauthenticated = (await (await consoleGet(rt)).json()) as LoginRequiredView;
    expect(unauthenticated.signIn).toEqual({ password: true, passkey: false });
    await consoleSignIn(rt);
    const response = await approve(rt, await signedRequest(rt));
    expect(response.status).toBe(302);
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
  });

  it("once a passkey exists, the console refuses the password (403) and offers only the passkey", async () => {
    const { rt } = await ownerWithPasskey(OFF);
    await expectRefused(
      await consolePost(rt, "/sign-in", { password: TEST_PASSWORD, remember: "true" }),
      403,
      "access_denied",
    );
    expect(((await (await consoleGet(rt)).json()) as LoginRequiredView).signIn).toEqual({
      password: false,
      passkey: true,
    });
  });

  it("once a passkey exists, an app's sign-in page is told so, and the password is refused with error=password-off", async () => {
    const { rt } = await ownerWithPasskey(OFF);
    const hand = await authorize(rt, authorizationParams());
    expect(hand.status).toBe(303);
    expect(offerIn(hand)).toEqual({ session: false, passkey: true, password: false });

    const response = await approve(rt, fragmentOf(hand).get("request")!);
    expect(response.status).toBe(303);
    expect(fragmentOf(response).get("error")).toBe("password-off");
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("passkey sign-in still works, at the console and for an app", async () => {
    const { rt, authenticator } = await ownerWithPasskey(OFF);
    expect((await signInWith(rt, authenticator)).status).toBe(200);
    const { options, ticket } = await authenticationOptions(rt);
    const response = await approve(rt, await signedRequest(rt), {
      password: "",
      fields: { passkey_ticket: ticket, passkey_response: JSON.stringify(authenticator.authenticate(options)) },
    });
    expect(response.status).toBe(302);
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
  });

  it("adding another passkey still takes the password as confirmation (a passkey session, password off)", async () => {
    const { rt, authenticator } = await ownerWithPasskey(OFF);
    const cookie = cookieFrom(await signInWith(rt, authenticator));
    const second = await registerPasskey(rt, cookie);
    expect((await overview(rt, cookie)).passkeys.map((p) => p.id)).toEqual([
      authenticator.credentialId,
      second.credentialId,
    ]);
    // ...but not a wrong one.
    const wrong = await passkeysPost(rt, "/registration-options", { password: "not the password" }, { cookie });
    expect(wrong.status).toBe(401);
  });
});

describe("removing a passkey takes the password or a passkey again, as adding one does", () => {
  const remove = (rt: TestRuntime, cookie: string, fields: Record<string, string>) =>
    consolePost(rt, "/passkeys/delete", fields, { cookie });

  it("a session alone, a wrong password or a junk passkey answer is refused, and the passkey stays", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    const id = authenticator.credentialId;
    await expectRefused(await remove(rt, cookie, { id }), 400, "invalid_request");
    await expectRefused(await remove(rt, cookie, { id, password: "not the password" }), 401, "wrong_credentials");
    await expectRefused(
      await remove(rt, cookie, { id, passkey_ticket: "x", passkey_response: '{"id":"x","response":{}}' }),
      401,
      "wrong_credentials",
    );
    expect((await overview(rt, cookie)).passkeys.map((p) => p.id)).toEqual([id]);
  });

  it("with the password: removed (200), and the console no longer lists it", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    expect((await remove(rt, cookie, { id: authenticator.credentialId, password: TEST_PASSWORD })).status).toBe(200);
    expect((await overview(rt, cookie)).passkeys).toEqual([]);
  });

  it("with a passkey's answer (the very key being removed): removed (200)", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey();
    const { options, ticket } = await authenticationOptions(rt);
    const fields = {
      id: authenticator.credentialId,
      passkey_ticket: ticket,
      passkey_response: JSON.stringify(authenticator.authenticate(options)),
    };
    expect((await remove(rt, cookie, fields)).status).toBe(200);
    expect(await listPasskeys(rt.store)).toEqual([]);
  });

  it("PASSWORD_LOGIN=off: a session alone cannot remove the last passkey to turn the password back on", async () => {
    const { rt, cookie, authenticator } = await ownerWithPasskey({ PASSWORD_LOGIN: "off" });
    await expectRefused(await remove(rt, cookie, { id: authenticator.credentialId }), 400, "invalid_request");
    // Password sign-in stays off.
    await expectRefused(await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }), 403, "access_denied");
    // The owner, confirming with the passkey, may still choose to.
    const { options, ticket } = await authenticationOptions(rt);
    const fields = {
      id: authenticator.credentialId,
      passkey_ticket: ticket,
      passkey_response: JSON.stringify(authenticator.authenticate(options)),
    };
    expect((await remove(rt, cookie, fields)).status).toBe(200);
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD })).status).toBe(200);
  });
});

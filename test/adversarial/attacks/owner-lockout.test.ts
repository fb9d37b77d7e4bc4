// Attack catalogue: locking the owner out. The overall limit (past twenty failures in an hour,
// one counted guess a minute for devices not known) is there against password guessing; a
// valid passkey answer cannot be guessed, so no limit ever stops one: it is verified first.
// Junk passkey answers from any number of addresses, the owner's own included, therefore never
// keep the owner's passkey out; junk that cannot be the owner's writes nothing, and answers that
// name the owner's passkey but fail count like wrong passwords (against floods). And a device the owner
// signed in on before (its known-device cookie) or a live session is judged by its own
// failures only: no number of failures from elsewhere keeps it out, nor keeps the owner from
// confirming the password to add a passkey. (The guessing limits: password-guessing.test.ts.)
import { describe, expect, it } from "vitest";
import { THROTTLE_POLICY } from "../../../netlify/lib/core/policy.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { consolePost, consoleSignIn, cookieFrom, passkeysPost } from "../../helpers/console.ts";
import { approve, signedRequest } from "../../helpers/endpoints.ts";
import { TEST_PASSWORD } from "../../helpers/env.ts";
import {
  forgedAnswer,
  passkeyAnswer,
  passkeySignIn,
  registerPasskey,
  withPasskey,
} from "../../helpers/passkey-owner.ts";
import { createSoftAuthenticator } from "../../helpers/soft-authenticator.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";

const p = THROTTLE_POLICY;
const OWNER_IP = "192.0.2.200";
const addresses = (count: number, net = "198.51.100") => Array.from({ length: count }, (_, i) => `${net}.${i + 1}`);
/** Addresses in as many networks (one per /24). */
const spread = (count: number) => Array.from({ length: count }, (_, i) => `198.51.${i}.7`);

/** Signs in once from the owner's address; the known-device cookie for the console's API and
 * for the sign-in page's form (one per path, as a browser sends them). */
async function knownDeviceCookies(rt: TestRuntime): Promise<{ api: string; approve: string }> {
  const response = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP });
  expect(response.status).toBe(200);
  const device = response.headers.getSetCookie().filter((c) => /^(__Secure-)?indieauth_device=/.test(c));
  const forPath = (path: string) => device.find((c) => c.includes(`Path=${path}`))!.split(";", 1)[0]!;
  return { api: forPath("/indieauth/api"), approve: forPath("/auth/approve") };
}

/** Junk of every kind a guesser can send: not JSON, JSON that is no assertion, and assertions
 * that parse and name the owner's real credential on a real ticket but are signed by another key. */
async function junk(rt: TestRuntime, realId: string, i: number): Promise<{ ticket: string; response: string }> {
  switch (i % 3) {
    case 0:
      return { ticket: "x", response: "not json at all" };
    case 1:
      return { ticket: "x", response: JSON.stringify({ id: realId, response: {} }) };
    default:
      return forgedAnswer(rt, realId);
  }
}

/** Every address sends `each` junk answers, all refused (401 while not held back, 429 after). */
async function junkFrom(rt: TestRuntime, ips: string[], each: number, realId: string): Promise<void> {
  for (const ip of ips) {
    for (let i = 0; i < each; i++)
      expect([401, 429]).toContain((await passkeySignIn(rt, await junk(rt, realId, i), ip)).status);
  }
}

describe("owner lock-out: junk passkey answers", () => {
  it("forty junk answers from eight networks (twice the overall limit's twenty) never stop the owner's passkey, at the console or for an app", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    await junkFrom(rt, spread(8), p.freeFailuresPerIp, authenticator.credentialId);

    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    const answer = await passkeyAnswer(rt, authenticator);
    const approved = await approve(rt, await signedRequest(rt), {
      password: "",
      ip: OWNER_IP,
      fields: { passkey_ticket: answer.ticket, passkey_response: answer.response },
    });
    expect(approved.status).toBe(302);
    // Nor do they lock the password: most of the junk counted for nothing (8 forged ones counted).
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP })).status).toBe(200);
  }, 60_000);

  it("junk from the owner's own address and network, on a device that never signed in, with PASSWORD_LOGIN=off: the owner's passkey still signs in, at the console and for an app", async () => {
    const rt = await fastRuntime({ env: { PASSWORD_LOGIN: "off" } });
    const { authenticator } = await withPasskey(rt);
    // Far past the address's five and the network's ten, of every kind, forged ones included.
    await junkFrom(rt, [OWNER_IP, "192.0.2.201", "192.0.2.202"], 3 * p.freeFailuresPerIp, authenticator.credentialId);
    expect((await passkeySignIn(rt, await forgedAnswer(rt, authenticator.credentialId), OWNER_IP)).status).toBe(429);

    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    const answer = await passkeyAnswer(rt, authenticator);
    const approved = await approve(rt, await signedRequest(rt), {
      password: "",
      ip: OWNER_IP,
      fields: { passkey_ticket: answer.ticket, passkey_response: answer.response },
    });
    expect(approved.status).toBe(302);
  }, 60_000);

  it("junk that cannot be the owner's (no answer, a forged ticket, a passkey not registered) is refused and never held back: nothing was counted", async () => {
    const rt = await fastRuntime();
    await withPasskey(rt);
    for (let i = 0; i < 4 * p.freeFailuresPerIp; i++) {
      const answer = i % 2 ? { ticket: "x", response: "{}" } : await passkeyAnswer(rt, createSoftAuthenticator());
      expect((await passkeySignIn(rt, answer, OWNER_IP)).status).toBe(401);
    }
    // The password is not held back at that address either.
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP })).status).toBe(200);
  });

  it("answers naming the owner's passkey that fail count per address against floods: the sixth is held back (429), in words for passkeys; the owner's passkey there still signs in", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    const [flooder] = addresses(1);
    for (let i = 0; i < p.freeFailuresPerIp; i++)
      expect((await passkeySignIn(rt, await forgedAnswer(rt, authenticator.credentialId), flooder)).status).toBe(401);
    const held = await passkeySignIn(rt, await forgedAnswer(rt, authenticator.credentialId), flooder);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get("retry-after"))).toBe(p.firstBackoffMs / 1000);
    expect(((await held.json()) as { error_description: string }).error_description).toBe(
      "That passkey was not accepted, and many passkey answers have failed here lately: use a passkey registered on this site, or try again in 1 minute.",
    );
    // The same address, with the owner's passkey.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), flooder)).status).toBe(200);
  });
});

describe("owner lock-out: the overall password limit", () => {
  it("past twenty wrong passwords from twenty networks, a new device waits its minute, but the owner's passkey still signs in", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    for (const ip of spread(p.globalFailures))
      expect((await consolePost(rt, "/sign-in", { password: "wrong" }, { ip })).status).toBe(401);
    // A device never seen before is slowed like the guesser: one counted guess a minute.
    const password = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP });
    expect(password.status).toBe(429);
    expect(Number(password.headers.get("retry-after"))).toBe(p.globalIntervalMs / 1000);
    // ...and told the ways round it.
    expect(((await password.json()) as { error_description: string }).error_description).toMatch(
      /sign in with a passkey or on a device you have signed in on before/,
    );
    // A valid passkey cannot have been guessed: it is verified and let through.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    // ...and an invalid one is still refused as such (401), not let through by the limit's absence.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, createSoftAuthenticator()), OWNER_IP)).status).toBe(401);
  });

  it("with PASSWORD_LOGIN=off, password attempts from many addresses (never checked) lock nothing: the password still confirms a new passkey", async () => {
    const rt = await fastRuntime({ env: { PASSWORD_LOGIN: "off" } });
    const { cookie, authenticator } = await withPasskey(rt);
    for (const ip of spread(p.globalFailures + 5))
      expect((await consolePost(rt, "/sign-in", { password: "guess" }, { ip })).status).toBe(403);
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    const confirm = await passkeysPost(
      rt,
      "/registration-options",
      { password: TEST_PASSWORD },
      { cookie, ip: OWNER_IP },
    );
    expect(confirm.status).toBe(200);
  });
});

describe("owner lock-out: a device that signed in before", () => {
  /** Keeps the guessing going: the overall limit engaged, and the owner's own address held back too. */
  async function guessEverywhere(rt: TestRuntime): Promise<void> {
    for (const ip of spread(p.globalFailures + 5))
      expect([401, 429]).toContain((await consolePost(rt, "/sign-in", { password: "wrong" }, { ip })).status);
    for (let i = 0; i < p.freeFailuresPerIp + 3; i++)
      expect([401, 429]).toContain((await consolePost(rt, "/sign-in", { password: "wrong" }, { ip: OWNER_IP })).status);
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: "192.0.2.201" })).status).toBe(429);
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP })).status).toBe(429);
  }

  it("is never held back by failures from elsewhere: it signs in to the console and to an app, and confirms the password to add a passkey", async () => {
    const rt = await fastRuntime();
    const device = await knownDeviceCookies(rt);
    await guessEverywhere(rt);
    // The very address the guesses came from, with the known-device cookie.
    const signIn = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP, cookie: device.api });
    expect(signIn.status).toBe(200);
    const cookie = `${cookieFrom(signIn)}; ${device.api}`;
    expect(
      (await approve(rt, await signedRequest(rt), { ip: OWNER_IP, headers: { Cookie: device.approve } })).status,
    ).toBe(302);
    expect(
      (await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie, ip: OWNER_IP })).status,
    ).toBe(200);
    await registerPasskey(rt, cookie);
  });

  it("a live session, even without the cookie, confirms the password for a passkey while guessing goes on", async () => {
    const rt = await fastRuntime();
    const session = await consoleSignIn(rt, { ip: OWNER_IP });
    await guessEverywhere(rt);
    expect(
      (await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie: session, ip: OWNER_IP }))
        .status,
    ).toBe(200);
  });

  it("is held back by its own failures (five free, then the back-off), which hold back no one else", async () => {
    const rt = await fastRuntime();
    const device = await knownDeviceCookies(rt);
    for (let i = 0; i < p.freeFailuresPerIp; i++)
      expect(
        (await consolePost(rt, "/sign-in", { password: "typo" }, { ip: OWNER_IP, cookie: device.api })).status,
      ).toBe(401);
    const held = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP, cookie: device.api });
    expect(held.status).toBe(429);
    expect(Number(held.headers.get("retry-after"))).toBe(p.firstBackoffMs / 1000);
    // Its address is not held back for another browser: the device's failures were its own.
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP })).status).toBe(200);
  });

  it("is told by a cookie of its own: signed, HttpOnly, Secure, SameSite=Strict, sent only where a credential is checked", async () => {
    const rt = await fastRuntime();
    const response = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP });
    const device = response.headers.getSetCookie().filter((c) => c.startsWith("__Secure-indieauth_device="));
    expect(device.map((c) => /Path=([^;]+)/.exec(c)?.[1]).sort()).toEqual(["/auth/approve", "/indieauth/api"]);
    for (const c of device) {
      expect(c).toMatch(/; HttpOnly/);
      expect(c).toMatch(/; Secure/);
      expect(c).toMatch(/; SameSite=Strict/);
      expect(Number(/Max-Age=(\d+)/.exec(c)?.[1])).toBeGreaterThanOrEqual(300 * 24 * 60 * 60);
    }
  });

  it("a forged cookie, a session cookie in its place, or another server's cookie is no known device", async () => {
    const rt = await fastRuntime();
    const other = await fastRuntime({ env: { SECRET: "another-secret-another-secret-another-secret" } });
    const session = await consoleSignIn(rt, { ip: OWNER_IP });
    const foreign = (await knownDeviceCookies(other)).api;
    await guessEverywhere(rt);
    const sessionValue = session.split("=").slice(1).join("=");
    for (const cookie of [
      `__Secure-indieauth_device=${sessionValue}`,
      foreign,
      "__Secure-indieauth_device=eyJhbGciOiJub25lIn0.eyJkaWQiOiJ4In0.",
    ]) {
      expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP, cookie })).status).toBe(
        429,
      );
    }
  });

  it("a sign-in says whether the device was known (the point where the owner may be told of a new device)", async () => {
    const rt = await fastRuntime();
    const { signInOwner } = await import("../../../netlify/lib/owner/sign-in.ts");
    if (!rt.config.ok) throw new Error("test config");
    const credential = { method: "password", password: TEST_PASSWORD } as const;
    const { eventSubscribers } = await import("../../../netlify/lib/owner/event-subscribers.ts");
    const emit = eventSubscribers({ rt, config: rt.config.config });
    const first = await signInOwner(rt, rt.config.config, credential, {
      ip: OWNER_IP,
      where: "account",
      req: new Request("https://auth.jane.example/"),
      emit,
    });
    expect(first).toMatchObject({ ok: true, knownDevice: false });
    const cookie = first.ok ? first.setCookies[0]!.split(";", 1)[0]! : "";
    const again = await signInOwner(rt, rt.config.config, credential, {
      ip: OWNER_IP,
      where: "account",
      req: new Request("https://auth.jane.example/", { headers: { cookie } }),
      emit,
    });
    expect(again).toMatchObject({ ok: true, knownDevice: true });
  });
});

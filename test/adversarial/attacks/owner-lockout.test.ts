// Attack catalogue: locking the owner out. The overall lock (twenty failures in an hour stop
// every password for fifteen minutes) is there against password guessing; a passkey answer
// cannot be guessed, so it neither counts towards that lock nor is stopped by it. Junk passkey
// answers from any number of addresses therefore never keep the owner's passkey out, while
// each address keeps its own limit against floods. The password's own throttle is unchanged
// (password-guessing.test.ts).
import { describe, expect, it } from "vitest";
import { THROTTLE_POLICY } from "../../../netlify/lib/owner/throttle.ts";
import { fastRuntime } from "../../helpers/attack-kit.ts";
import { consolePost, passkeysPost } from "../../helpers/console.ts";
import { approve, signedRequest } from "../../helpers/endpoints.ts";
import { TEST_PASSWORD } from "../../helpers/env.ts";
import { passkeyAnswer, passkeySignIn, withPasskey } from "../../helpers/passkey-owner.ts";
import { createSoftAuthenticator } from "../../helpers/soft-authenticator.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";

const p = THROTTLE_POLICY;
const OWNER_IP = "192.0.2.200";
const addresses = (count: number, net = "198.51.100") => Array.from({ length: count }, (_, i) => `${net}.${i + 1}`);

/** Junk of every kind a guesser can send: not JSON, JSON that is no assertion, and assertions
 * that parse and name the owner's real credential on a real ticket but are signed by another key. */
async function junk(rt: TestRuntime, realId: string, i: number): Promise<{ ticket: string; response: string }> {
  switch (i % 3) {
    case 0:
      return { ticket: "x", response: "not json at all" };
    case 1:
      return { ticket: "x", response: JSON.stringify({ id: realId, response: {} }) };
    default: {
      const forged = await passkeyAnswer(rt, createSoftAuthenticator());
      return { ticket: forged.ticket, response: forged.response.replace(/"id":"[^"]+"/, `"id":"${realId}"`).replace(/"rawId":"[^"]+"/, `"rawId":"${realId}"`) };
    }
  }
}

/** Every address sends `each` junk answers, all refused (401), none held back yet. */
async function junkFrom(rt: TestRuntime, ips: string[], each: number, realId: string): Promise<void> {
  for (const ip of ips) {
    for (let i = 0; i < each; i++) expect((await passkeySignIn(rt, await junk(rt, realId, i), ip)).status).toBe(401);
  }
}

describe("owner lock-out: junk passkey answers", () => {
  it("forty junk answers from eight addresses (twice the overall lock's twenty) never stop the owner's passkey, at the console or for an app", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    await junkFrom(rt, addresses(8), p.freeFailuresPerIp, authenticator.credentialId);

    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    const answer = await passkeyAnswer(rt, authenticator);
    const approved = await approve(rt, await signedRequest(rt), { password: "", ip: OWNER_IP, fields: { passkey_ticket: answer.ticket, passkey_response: answer.response } });
    expect(approved.status).toBe(302);
    // Nor do they lock the password: the junk guessed nothing.
    expect((await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP })).status).toBe(200);
  });

  it("each address keeps its own limit against floods: its sixth junk answer is held back (429)", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    const [flooder] = addresses(1);
    await junkFrom(rt, [flooder!], p.freeFailuresPerIp, authenticator.credentialId);
    const held = await passkeySignIn(rt, await junk(rt, authenticator.credentialId, 0), flooder);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get("retry-after"))).toBe(p.firstBackoffMs / 1000);
    // Another address, the owner's, is not held back.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
  });
});

describe("owner lock-out: the overall password lock", () => {
  it("twenty wrong passwords from twenty addresses lock the password for everyone, but the owner's passkey still signs in", async () => {
    const rt = await fastRuntime();
    const { authenticator } = await withPasskey(rt);
    for (const ip of addresses(p.globalFailures)) expect((await consolePost(rt, "/sign-in", { password: "wrong" }, { ip })).status).toBe(401);
    // The password's throttle is as it was: locked for everyone, the right password included.
    const password = await consolePost(rt, "/sign-in", { password: TEST_PASSWORD }, { ip: OWNER_IP });
    expect(password.status).toBe(429);
    expect(Number(password.headers.get("retry-after"))).toBe(p.globalLockMs / 1000);
    // A valid passkey cannot have been guessed: it is verified and let through.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    // ...and an invalid one is still refused as such (401), not let through by the lock's absence.
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, createSoftAuthenticator()), OWNER_IP)).status).toBe(401);
  });

  it("with PASSWORD_LOGIN=off, password attempts from many addresses (never checked) lock nothing: the password still confirms a new passkey", async () => {
    const rt = await fastRuntime({ env: { PASSWORD_LOGIN: "off" } });
    const { cookie, authenticator } = await withPasskey(rt);
    for (const ip of addresses(p.globalFailures + 5)) expect((await consolePost(rt, "/sign-in", { password: "guess" }, { ip })).status).toBe(403);
    expect((await passkeySignIn(rt, await passkeyAnswer(rt, authenticator), OWNER_IP)).status).toBe(200);
    const confirm = await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie, ip: OWNER_IP });
    expect(confirm.status).toBe(200);
  });
});

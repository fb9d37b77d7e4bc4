import { describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import { checkRequest, signRequest, verifyRequest } from "../../netlify/lib/protocol/request-object.ts";
import type { AuthorizationRequest } from "../../netlify/lib/pages/sign-in-fragment.ts";
import { readRequestShape } from "../../netlify/lib/pages/request-object-shape.ts";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";

const key = deriveKey("x".repeat(40), "authorization-request");
const issuer = "https://auth.jane.example/";
const now = Date.UTC(2026, 10, 21, 12);
const request: AuthorizationRequest = {
  clientId: "https://app.example.com/",
  redirectUri: "https://app.example.com/cb",
  state: "s",
  codeChallenge: "c".repeat(43),
  scopes: ["profile"],
  client: { name: "App" },
};

describe("signed authorization requests", () => {
  it("round-trips, with the page's offer and the expiry", async () => {
    const token = await signRequest(request, key, issuer, now);
    expect(await verifyRequest(token, key, issuer, now + 60_000)).toEqual({
      request,
      offer: { session: false, passkey: false, password: true },
      expiresAt: now + 15 * 60_000,
      rid: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
    const offer = { session: false, passkey: true, password: false, signedIn: "new-app" } as const;
    expect(
      (await verifyRequest(await signRequest(request, key, issuer, now, { offer }), key, issuer, now))?.offer,
    ).toEqual(offer);
  });

  it("signed again with a new offer, keeps its first expiry: it is never extended", async () => {
    const first = await verifyRequest(
      await signRequest(request, key, issuer, now, { offer: { session: true } }),
      key,
      issuer,
      now,
    );
    const later = now + 10 * 60_000;
    const again = await signRequest(first!.request, key, issuer, later, {
      offer: { session: false, passkey: false, password: true },
      expiresAt: first!.expiresAt,
    });
    expect((await verifyRequest(again, key, issuer, later))?.expiresAt).toBe(now + 15 * 60_000);
    expect(await verifyRequest(again, key, issuer, now + 15 * 60_000 + 1000)).toBeNull();
    // Nor can a caller ask for more than the usual 15 minutes.
    const greedy = await signRequest(request, key, issuer, now, { expiresAt: now + 60 * 60_000 });
    expect((await verifyRequest(greedy, key, issuer, now))?.expiresAt).toBe(now + 15 * 60_000);
  });

  it("refuses an altered payload", async () => {
    const [header, payload, signature] = (await signRequest(request, key, issuer, now)).split(".");
    const altered = JSON.parse(Buffer.from(payload!, "base64url").toString());
    altered.redirectUri = "https://evil.example/cb";
    const forged = [header, Buffer.from(JSON.stringify(altered)).toString("base64url"), signature].join(".");
    expect(await verifyRequest(forged, key, issuer, now)).toBeNull();
  });

  it("refuses one signed with another key, one that expired, and a JWT of another type", async () => {
    const otherKey = deriveKey("y".repeat(40), "authorization-request");
    expect(await verifyRequest(await signRequest(request, otherKey, issuer, now), key, issuer, now)).toBeNull();
    expect(
      await verifyRequest(await signRequest(request, key, issuer, now), key, issuer, now + 16 * 60_000),
    ).toBeNull();
    const untyped = await new SignJWT({ ...request })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer(issuer)
      .setAudience(`${issuer}auth/approve`)
      .setIssuedAt(now / 1000)
      .setExpirationTime(now / 1000 + 60)
      .sign(key);
    expect(await verifyRequest(untyped, key, issuer, now)).toBeNull();
    expect(await verifyRequest("not.a.jwt", key, issuer, now)).toBeNull();
  });
});

describe("what is wrong with a request, told apart", () => {
  const b64 = (value: unknown) =>
    Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

  it("reads the shape of a whole request without the key, and nothing else", async () => {
    const token = await signRequest(request, key, issuer, now);
    expect(readRequestShape(token)).toMatchObject({
      claims: { clientId: request.clientId },
      expiresAt: now + 15 * 60_000,
    });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    for (const cut of [
      token.slice(0, -1),
      `${header}.${payload}`,
      `${header}.${payload.slice(0, 20)}.${signature}`,
      "",
      "a.b.c",
    ]) {
      expect(readRequestShape(cut)).toBeNull();
    }
    // Another type of this server's JWTs (a session cookie, say), a payload without times, bytes that are not UTF-8.
    expect(
      readRequestShape(`${b64({ alg: "HS256", typ: "indieauth-session+jwt" })}.${payload}.${signature}`),
    ).toBeNull();
    expect(readRequestShape(`${header}.${b64({ clientId: "x" })}.${signature}`)).toBeNull();
    expect(readRequestShape(`${header}.${Buffer.from([0xff, 0xfe]).toString("base64url")}.${signature}`)).toBeNull();
  });

  it("expired only when this server signed it; changed however old it says it is; incomplete when cut", async () => {
    const token = await signRequest(request, key, issuer, now);
    const later = now + 15 * 60_000;
    expect(await checkRequest(token, key, issuer, now)).toMatchObject({ ok: true });
    expect(await checkRequest(token, key, issuer, later)).toEqual({
      ok: false,
      problem: "expired",
      clientId: request.clientId,
    });
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
    const changed = `${header}.${b64({ ...claims, state: "other" })}.${signature}`;
    expect(await checkRequest(changed, key, issuer, now + 10_000)).toEqual({ ok: false, problem: "altered" });
    expect(await checkRequest(changed, key, issuer, later)).toEqual({ ok: false, problem: "altered" });
    expect(await checkRequest(token, deriveKey("y".repeat(40), "authorization-request"), issuer, later)).toEqual({
      ok: false,
      problem: "altered",
    });
    expect(await checkRequest(token.slice(0, -3), key, issuer, now)).toEqual({ ok: false, problem: "incomplete" });
  });
});

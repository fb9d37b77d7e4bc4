// "Keep me signed in on this device": the session cookie, what it skips (the password, for an
// app approved before with it) and what it never skips (Approve), and that a revoked, expired
// or forged cookie is worth nothing. (What a session may approve alone: app-approvals.test.ts.)
import { parseSetCookie } from "cookie";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { CodeRecord } from "../../netlify/lib/protocol/codes.ts";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { SESSION_TYPE, type SessionRecord } from "../../netlify/lib/owner/sessions.ts";
import { consoleGet, consolePost, cookieFrom } from "../helpers/console.ts";
import { approve, authorize, endpoints, signedRequest } from "../helpers/endpoints.ts";
import {
  approveRequest,
  authorizationParams,
  CLIENT_IP,
  offerIn,
  REDIRECT_URI,
  redirectParams,
} from "../helpers/requests.ts";
import { TEST_SECRET } from "../helpers/env.ts";
import { heldStore } from "../helpers/held-store.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

const DAY = 24 * 60 * 60 * 1000;

/** Signs in to an app with the password and "Keep me signed in", granting the scopes it asks
 * for (which the session may then approve again); returns the cookie. */
async function rememberedSignIn(rt: TestRuntime): Promise<{ response: Response; cookie: string }> {
  const response = await approve(rt, await signedRequest(rt), { remember: true, scopes: ["profile", "create"] });
  expect(response.status).toBe(302);
  return { response, cookie: cookieFrom(response) };
}

function fragmentOf(response: Response): URLSearchParams {
  return new URLSearchParams((response.headers.get("location") ?? "").split("#")[1]);
}

/** Whether the sign-in page is told (inside the signed request) to offer Approve alone. */
async function approveAloneOffered(rt: TestRuntime, cookie: string): Promise<boolean> {
  const response = await authorize(rt, authorizationParams(), { Cookie: cookie });
  expect(response.status).toBe(303);
  return offerIn(response).session === true;
}

describe("starting a session", () => {
  it("sets a __Secure- cookie that is HttpOnly, Secure, this host's only, for /auth (SameSite=Lax) and the console's API (Strict), and lasts 30 days", async () => {
    const rt = await testRuntime();
    const { response } = await rememberedSignIn(rt);
    const setCookies = response.headers.getSetCookie().filter((c) => c.includes("indieauth_session="));
    expect(setCookies.map((c) => /^__Secure-indieauth_session=[^;]+/.exec(c)?.[0])).toEqual([
      expect.any(String),
      expect.any(String),
    ]);
    const attributesOf = (c: string) =>
      c
        .split(";")
        .slice(1)
        .map((a) => a.trim().toLowerCase());
    expect(setCookies.map(attributesOf)).toEqual([
      expect.arrayContaining(["httponly", "secure", "samesite=lax", "path=/auth", `max-age=${30 * 24 * 60 * 60}`]),
      expect.arrayContaining([
        "httponly",
        "secure",
        "samesite=strict",
        "path=/indieauth/api",
        `max-age=${30 * 24 * 60 * 60}`,
      ]),
    ]);
    for (const c of setCookies) expect(attributesOf(c).some((a) => a.startsWith("domain="))).toBe(false);
    // The person still goes back to the app with a code.
    expect(redirectParams(response).get("code")).toMatch(/^ic_/);
  });

  it("stores one session record, which holds no secret of the cookie", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    const keys = await rt.store.list(RECORDS.session.prefix);
    expect(keys).toHaveLength(1);
    const record = await rt.store.get<SessionRecord>(keys[0]!);
    expect(record).toMatchObject({ method: "password", persistent: true, ip: "203.0.113.7" });
    expect(record!.expiresAt - record!.createdAt).toBe(30 * DAY);
    expect(JSON.stringify(record)).not.toContain(cookie.split("=")[1]!);
  });

  it("is not started unless the owner ticks the box", async () => {
    const rt = await testRuntime();
    const response = await approve(rt, await signedRequest(rt));
    expect(response.status).toBe(302);
    // Only the known-device cookies (owner-lockout.test.ts), no session.
    expect(response.headers.getSetCookie().filter((c) => !c.startsWith("__Secure-indieauth_device="))).toEqual([]);
    expect(await rt.store.list(RECORDS.session.prefix)).toEqual([]);
  });

  it("is not started by a wrong password, even with the box ticked", async () => {
    const rt = await testRuntime();
    const response = await approve(rt, await signedRequest(rt), { remember: true, password: "wrong" });
    expect(response.status).toBe(303);
    expect(response.headers.get("set-cookie")).toBeNull();
    expect(await rt.store.list(RECORDS.session.prefix)).toEqual([]);
  });

  it("in local development drops the __Secure- prefix and Secure (http://localhost cannot have them)", async () => {
    const rt = await testRuntime({
      env: { CONTEXT: "dev", BASE_URL: "http://localhost:8888", ME: "http://localhost:8888/" },
    });
    const request = await signedRequest(rt, authorizationParams({ me: "http://localhost:8888/" }));
    const response = await approve(rt, request, { remember: true, headers: { Origin: "http://localhost:8888" } });
    const cookies = response.headers.getSetCookie();
    const setCookie = cookies.find((c) => c.startsWith("indieauth_session="))!;
    expect(setCookie).toMatch(/^indieauth_session=/);
    expect(setCookie.toLowerCase()).not.toContain("secure");
    expect(setCookie.toLowerCase()).toContain("httponly");
    // The known-device cookie likewise, without its __Secure- prefix.
    const device = cookies.filter((c) => c.startsWith("indieauth_device="));
    expect(device).toHaveLength(2);
    for (const c of device) expect(c.toLowerCase()).not.toContain("secure");
  });
});

describe("with a live session", () => {
  it("the sign-in page is told to ask for Approve only", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    expect(await approveAloneOffered(rt, cookie)).toBe(true);
    expect(await approveAloneOffered(rt, "")).toBe(false);
  });

  it("Approve without a password issues the code, and the history says so", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    rt.clock.advance(60_000);
    const response = await approve(rt, await signedRequest(rt), {
      password: "",
      headers: { Cookie: cookie },
      scopes: ["create"],
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    const record = await rt.store.get<CodeRecord>(RECORDS.code.key(location.searchParams.get("code")!));
    expect(record!.scopes).toEqual(["create"]);
    // No second session is started by a session.
    expect(await rt.store.list(RECORDS.session.prefix)).toHaveLength(1);

    const overview = (await (await consoleGet(rt, { cookie })).json()) as {
      events: { method: string; outcome: string }[];
    };
    expect(overview.events[0]).toMatchObject({ method: "session", outcome: "success" });
  });

  it("with Netlify's waitUntil, the person gets the code before the history line is written, and the line follows", async () => {
    // The history's write waits until the test lets it go, after the answer: an answer that
    // waited for it would never come.
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    rt.clock.advance(60_000);
    const held = heldStore(rt.store);
    const historyWrite = held.hold("setIfNew", { prefix: RECORDS.signInEvent.prefix }, "before");
    const handed: Promise<unknown>[] = [];
    const request = approveRequest(await signedRequest(rt), {
      password: "",
      headers: { Cookie: cookie },
      scopes: ["create"],
    });
    const response = await endpoints.approve(
      request,
      { ...rt, store: held.store },
      { ip: CLIENT_IP, waitUntil: (work) => void handed.push(work) },
    );
    expect(response.status).toBe(302);
    await historyWrite.reached;
    historyWrite.release();
    await Promise.all(handed);
    const overview = (await (await consoleGet(rt, { cookie })).json()) as {
      events: { method: string; outcome: string }[];
    };
    expect(overview.events[0]).toMatchObject({ method: "session", outcome: "success" });
  });

  it("still needs Approve: Deny sends access_denied and no code", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    const response = await approve(rt, await signedRequest(rt), {
      password: "",
      decision: "deny",
      headers: { Cookie: cookie },
    });
    expect(redirectParams(response).get("error")).toBe("access_denied");
    expect(redirectParams(response).has("code")).toBe(false);
  });

  it("cannot be used from another site: a cross-site post with the cookie is refused", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    const response = await approve(rt, await signedRequest(rt), {
      password: "",
      headers: { Cookie: cookie, "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("location")).toBeNull();
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(1);
  });
});

describe("a session that is no longer live skips nothing", () => {
  async function expectPasswordAsked(rt: TestRuntime, cookie: string): Promise<void> {
    expect(await approveAloneOffered(rt, cookie)).toBe(false);
    const codesBefore = (await rt.store.list(RECORDS.code.prefix)).length;
    const response = await approve(rt, await signedRequest(rt), { password: "", headers: { Cookie: cookie } });
    expect(response.status).toBe(303);
    expect(fragmentOf(response).get("error")).toBe("session");
    expect(await rt.store.list(RECORDS.code.prefix)).toHaveLength(codesBefore);
  }

  it("after Sign out on this device", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    const signOut = await consolePost(rt, "/sign-out", {}, { cookie });
    expect(signOut.status).toBe(200);
    // Removed from both paths it was set for.
    expect(signOut.headers.getSetCookie().map((c) => parseSetCookie(c))).toEqual([
      expect.objectContaining({ name: "__Secure-indieauth_session", value: "", maxAge: 0, path: "/auth" }),
      expect.objectContaining({ name: "__Secure-indieauth_session", value: "", maxAge: 0, path: "/indieauth/api" }),
    ]);
    await expectPasswordAsked(rt, cookie);
  });

  it("after Sign out everywhere", async () => {
    const rt = await testRuntime();
    const first = await rememberedSignIn(rt);
    const second = await rememberedSignIn(rt);
    expect((await consolePost(rt, "/sign-out", { device: "all" }, { cookie: second.cookie })).status).toBe(200);
    await expectPasswordAsked(rt, first.cookie);
    await expectPasswordAsked(rt, second.cookie);
  });

  it("after 30 days", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    rt.clock.advance(30 * DAY + 1000);
    await expectPasswordAsked(rt, cookie);
  });

  it("when the cookie is tampered with", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    const [name, jwt] = cookie.split("=") as [string, string];
    const [header, payload, signature] = jwt.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as { sid: string };
    const other = await rememberedSignIn(rt);
    const otherSid = (JSON.parse(Buffer.from(other.cookie.split(".")[1]!, "base64url").toString()) as { sid: string })
      .sid;
    const swapped = Buffer.from(JSON.stringify({ ...claims, sid: otherSid })).toString("base64url");
    await expectPasswordAsked(rt, `${name}=${header}.${swapped}.${signature}`);
  });

  it("when it is signed with another key or is another kind of token", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    const sid = (JSON.parse(Buffer.from(cookie.split(".")[1]!, "base64url").toString()) as { sid: string }).sid;
    const sign = (key: Uint8Array, typ: string) =>
      new SignJWT({ sid })
        .setProtectedHeader({ alg: "HS256", typ })
        .setIssuer("https://auth.jane.example/")
        .setAudience("https://auth.jane.example/session")
        .setIssuedAt()
        .setExpirationTime("1h")
        .sign(key);
    // The right session id, but the request-object key, or the request-object type.
    await expectPasswordAsked(
      rt,
      `__Secure-indieauth_session=${await sign(deriveKey(TEST_SECRET, "authorization-request"), SESSION_TYPE)}`,
    );
    await expectPasswordAsked(
      rt,
      `__Secure-indieauth_session=${await sign(deriveKey(TEST_SECRET, "owner-session"), "indieauth-request+jwt")}`,
    );
    // A signed authorization request presented as a session cookie.
    await expectPasswordAsked(rt, `__Secure-indieauth_session=${await signedRequest(rt)}`);
    // The session record itself is intact: the genuine cookie still works.
    expect(await rt.store.get(RECORDS.session.key(sid))).not.toBeNull();
    expect(await approveAloneOffered(rt, cookie)).toBe(true);
  });

  it("an ended session's failed approve does not count as a wrong password", async () => {
    const rt = await testRuntime();
    const { cookie } = await rememberedSignIn(rt);
    await consolePost(rt, "/sign-out", {}, { cookie });
    for (let i = 0; i < 8; i++)
      await approve(rt, await signedRequest(rt), { password: "", headers: { Cookie: cookie } });
    const attempts = await Promise.all(
      [RECORDS.throttleAddress.prefix, RECORDS.throttleOverall.prefix].map((prefix) => rt.store.list(prefix)),
    );
    expect(attempts.flat()).toEqual([]);
    expect((await approve(rt, await signedRequest(rt))).status).toBe(302);
  });
});

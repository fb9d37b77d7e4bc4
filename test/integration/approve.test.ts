// The sign-in page's form (POST /auth/approve), in-process against the real local Blobs
// server: codes, denial, wrong passwords, throttling and cross-site refusal.
import { describe, expect, it } from "vitest";
import type { CodeRecord } from "../../netlify/lib/protocol/codes.ts";
import { approveEndpoint } from "../../netlify/lib/endpoints/approve.ts";
import { THROTTLE_POLICY } from "../../netlify/lib/core/policy.ts";
import { approvedBefore } from "../helpers/approved-app.ts";
import { approve, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, BASE, CLIENT_ID, REDIRECT_URI, redirectParams } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

describe("approving a sign-in", () => {
  it("redirects with code, state and iss, each once, and stores only the code's hash", async () => {
    const rt = await testRuntime();
    const response = await approve(rt, await signedRequest(rt), { scopes: ["profile", "create"] });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    for (const name of ["code", "state", "iss"]) expect(location.searchParams.getAll(name)).toHaveLength(1);
    expect(location.searchParams.get("state")).toBe("state-123");
    expect(location.searchParams.get("iss")).toBe("https://auth.jane.example/");
    const code = location.searchParams.get("code")!;
    expect(code).toMatch(/^ic_[A-Za-z0-9_-]{43}$/);

    const record = await rt.store.get<CodeRecord>(RECORDS.code.key(code));
    expect(record).toMatchObject({
      clientId: CLIENT_ID,
      redirectUri: REDIRECT_URI,
      scopes: ["profile", "create"],
      me: "https://jane.example/",
    });
    // Redeemable ten minutes; the record is kept as long as the signed request (fifteen).
    expect(record!.validUntil! - record!.issuedAt).toBe(10 * 60 * 1000);
    expect(record!.expiresAt - record!.issuedAt).toBe(15 * 60 * 1000);
    expect(JSON.stringify(record)).not.toContain(code);
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([RECORDS.code.key(code)]);
  });

  it("grants only the ticked scopes", async () => {
    const rt = await testRuntime();
    const response = await approve(
      rt,
      await signedRequest(rt, authorizationParams({ scope: "profile create update" })),
      { scopes: ["create", "delete"] },
    );
    const record = await rt.store.get<CodeRecord>(RECORDS.code.key(redirectParams(response).get("code")!));
    expect(record!.scopes).toEqual(["create"]);
  });

  it("returns state exactly as sent, however odd", async () => {
    const rt = await testRuntime();
    const state = "a b&c=d/é?%20+";
    const response = await approve(rt, await signedRequest(rt, authorizationParams({ state })));
    expect(redirectParams(response).get("state")).toBe(state);
  });

  it("keeps the redirect URI's own query", async () => {
    const rt = await testRuntime();
    const response = await approve(
      rt,
      await signedRequest(rt, authorizationParams({ redirect_uri: `${REDIRECT_URI}?app=1&state=old` })),
    );
    const params = redirectParams(response);
    expect(params.get("app")).toBe("1");
    expect(params.getAll("state")).toEqual(["state-123"]);
  });

  it("Deny sends access_denied with state and iss (to an app approved there before), and issues nothing", async () => {
    const rt = await approvedBefore(await testRuntime());
    const response = await approve(rt, await signedRequest(rt), { decision: "deny", password: "" });
    const params = redirectParams(response);
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("state")).toBe("state-123");
    expect(params.get("iss")).toBe("https://auth.jane.example/");
    expect(params.has("code")).toBe(false);
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("a wrong password goes back to the page with the same request", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    const response = await approve(rt, request, { password: "wrong" });
    expect(response.status).toBe(303);
    const fragment = new URLSearchParams(response.headers.get("location")!.split("#")[1]);
    expect(fragment.get("request")).toBe(request);
    expect(fragment.get("error")).toBe("password");
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("the same parameters sent twice in one moment are two requests: each approval gets its own code", async () => {
    // As the README's sign-in by hand is, pasted twice: the same state and PKCE challenge, and
    // (under the test's fixed clock) the same expiry. The first code is redeemed before the second approval.
    const rt = await testRuntime();
    const params = authorizationParams({ code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", state: "abc" });
    const [first, second] = [await signedRequest(rt, params), await signedRequest(rt, params)];
    const firstCode = redirectParams(await approve(rt, first)).get("code");
    await rt.store.setIfNew(RECORDS.usedCode.key(firstCode!), {
      usedAt: rt.now(),
      expiresAt: rt.now() + 60_000,
      grantId: "g",
    });
    const again = await approve(rt, second);
    expect(again.status).toBe(302);
    const secondCode = redirectParams(again).get("code");
    expect(secondCode).toEqual(expect.any(String));
    expect(secondCode).not.toBe(firstCode);
    // The same signed request approved again (a double-click) still answers its one code.
    expect(redirectParams(await approve(rt, second)).get("code")).toBe(secondCode);
  });

  it("refuses an altered request", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    const [header, payload, signature] = request.split(".");
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString());
    claims.redirectUri = "https://evil.example/steal";
    const forged = [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
    const response = await approve(rt, forged);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("refuses a request older than 15 minutes", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    rt.clock.advance(16 * 60 * 1000);
    const response = await approve(rt, request);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("expired");
  });

  it("refuses bodies over 64 KB with 413", async () => {
    const rt = await testRuntime();
    const response = await approve(rt, "x".repeat(70 * 1024));
    expect(response.status).toBe(413);
  });

  it("answers GET with 405", async () => {
    const response = await approveEndpoint(new Request(`${BASE}/auth/approve`), await testRuntime(), {
      ip: "203.0.113.7",
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

describe("cross-site posts are refused", () => {
  it.each([
    ["another Origin", { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }],
    ["a cross-site fetch with our Origin spoofed", { Origin: BASE, "Sec-Fetch-Site": "cross-site" }],
    ["same-site but not same-origin", { Origin: "https://blog.jane.example", "Sec-Fetch-Site": "same-site" }],
    ["an opaque origin from another site", { Origin: "null", "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site same-origin but another Origin", { Origin: "https://evil.example" }],
  ])("%s", async (_name, headers) => {
    const rt = await testRuntime();
    const response = await approve(rt, await signedRequest(rt), { headers });
    expect(response.status).toBe(403);
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
  });

  it("accepts the sign-in page's own post, which Chrome sends with Origin: null (no-referrer)", async () => {
    const rt = await testRuntime();
    const response = await approve(rt, await signedRequest(rt), {
      headers: { Origin: "null", "Sec-Fetch-Site": "same-origin" },
    });
    expect(response.status).toBe(302);
  });

  it("accepts an older browser's post that sends only a matching Origin", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    const body = new URLSearchParams({ request, decision: "approve", password: TEST_PASSWORD });
    const response = await approveEndpoint(
      new Request(`${BASE}/auth/approve`, { method: "POST", body, headers: { Origin: BASE } }),
      rt,
      { ip: "203.0.113.7" },
    );
    expect(response.status).toBe(302);
  });

  it("neither Origin nor Sec-Fetch-Site", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    const body = new URLSearchParams({ request, decision: "approve", password: "x" });
    const response = await approveEndpoint(new Request(`${BASE}/auth/approve`, { method: "POST", body }), rt, {
      ip: "203.0.113.7",
    });
    expect(response.status).toBe(403);
  });
});

describe("password throttling", () => {
  const p = THROTTLE_POLICY;

  it("backs off one IP after five failures, then lets it try again", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    for (let i = 0; i < p.freeFailuresPerIp; i++)
      expect((await approve(rt, request, { password: "wrong" })).status).toBe(303);

    const locked = await approve(rt, request);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBe(p.firstBackoffMs / 1000);
    expect(await locked.text()).toContain("Too many");
    // Another address is not affected.
    expect((await approve(rt, request, { ip: "198.51.100.9" })).status).toBe(302);

    rt.clock.advance(p.firstBackoffMs + 1000);
    expect((await approve(rt, request)).status).toBe(302);
  });

  it("doubles the back-off with each further failure", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    for (let i = 0; i < p.freeFailuresPerIp; i++) await approve(rt, request, { password: "wrong" });
    rt.clock.advance(p.firstBackoffMs + 1000);
    expect((await approve(rt, request, { password: "wrong" })).status).toBe(303);
    expect((await approve(rt, request)).headers.get("retry-after")).toBe(String((2 * p.firstBackoffMs) / 1000));
  });

  it("past 20 failures in an hour, lets one guess a minute through for devices not known, across instances sharing the store", async () => {
    const first = await testRuntime();
    const second = await testRuntime({ storeName: first.storeName });
    second.clock.now = first.clock.now;
    const request = await signedRequest(first);
    for (let i = 0; i < p.globalFailures; i++) {
      const instance = i % 2 === 0 ? first : second;
      expect((await approve(instance, request, { password: "wrong", ip: `198.51.${i}.7` })).status).toBe(303);
    }
    const locked = await approve(second, request, { ip: "192.0.2.200" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBe(p.globalIntervalMs / 1000);

    first.clock.advance(p.globalIntervalMs);
    expect((await approve(first, await signedRequest(first), { ip: "192.0.2.200" })).status).toBe(302);
  }, 60_000);

  it("does not lock for failures spread over more than an hour", async () => {
    const rt = await testRuntime();
    for (let i = 0; i < p.globalFailures; i++) {
      rt.clock.advance(4 * 60 * 1000);
      await approve(rt, await signedRequest(rt), { password: "wrong", ip: `198.51.${i}.7` });
    }
    expect((await approve(rt, await signedRequest(rt), { ip: "192.0.2.200" })).status).toBe(302);
  }, 60_000);
});

// A sign-in request that cannot be used, told apart: expired (genuine, more than 15 minutes
// old), changed (not as this server signed it, however young), or cut short. The sign-in page
// asks POST /auth/approve/check before it asks for the password; the approve step says the
// same if the form comes back anyway. In-process, against the real local Blobs server.
import { describe, expect, it } from "vitest";
import { deriveKey } from "../../netlify/lib/crypto/secrets.ts";
import { REQUEST_CHECK_PATH } from "../../netlify/lib/pages/paths.ts";
import { signRequest } from "../../netlify/lib/protocol/request-object.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { OperationCounter } from "../helpers/counting-store.ts";
import { approve, endpoints, signedRequest } from "../helpers/endpoints.ts";
import { BASE, CLIENT_ID, CLIENT_IP, post } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";

const SAME_ORIGIN = { Origin: BASE, "Sec-Fetch-Site": "same-origin" };

function check(rt: TestRuntime, request: string, headers: Record<string, string> = SAME_ORIGIN): Promise<Response> {
  return endpoints.approve(post(REQUEST_CHECK_PATH, { request }, headers), rt, { ip: CLIENT_IP });
}

async function verdict(rt: TestRuntime, request: string): Promise<unknown> {
  const response = await check(rt, request);
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return response.json();
}

/** The request with one claim of its payload changed, the signature kept. */
function withClaim(request: string, name: string, value: unknown): string {
  const [header, payload, signature] = request.split(".");
  const claims = JSON.parse(Buffer.from(payload!, "base64url").toString()) as Record<string, unknown>;
  claims[name] = value;
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

const TEN_SECONDS = 10_000;
const SIXTEEN_MINUTES = 16 * 60_000;

describe("POST /auth/approve/check", () => {
  it("answers a fresh request usable, with the seconds it has left", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    rt.clock.advance(TEN_SECONDS);
    expect(await verdict(rt, request)).toEqual({ usable: true, expires_in: 15 * 60 - 10 });
  });

  it("calls a genuine request older than 15 minutes expired", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    rt.clock.advance(SIXTEEN_MINUTES);
    expect(await verdict(rt, request)).toEqual({ usable: false, problem: "expired" });
  });

  it("calls a changed request ten seconds old changed, not expired", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    rt.clock.advance(TEN_SECONDS);
    expect(await verdict(rt, withClaim(request, "redirectUri", "https://evil.example/steal"))).toEqual({
      usable: false,
      problem: "altered",
    });
  });

  it("does not call a changed request expired even when its changed expiry has passed", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    const backdated = withClaim(request, "exp", Math.floor(rt.clock.now / 1000) - 60);
    expect(await verdict(rt, backdated)).toEqual({ usable: false, problem: "altered" });
    rt.clock.advance(SIXTEEN_MINUTES);
    expect(await verdict(rt, withClaim(request, "scopes", ["create", "delete"]))).toEqual({
      usable: false,
      problem: "altered",
    });
  });

  it("calls a request another server (or an earlier SECRET) signed changed", async () => {
    const rt = await testRuntime();
    const request = {
      clientId: CLIENT_ID,
      redirectUri: `${CLIENT_ID}callback`,
      state: "s",
      codeChallenge: "x".repeat(43),
      scopes: [],
      client: {},
    };
    const foreign = await signRequest(
      request,
      deriveKey("another-secret-that-is-at-least-32-characters", "authorization-request"),
      `${BASE}/`,
      rt.clock.now,
    );
    expect(await verdict(rt, foreign)).toEqual({ usable: false, problem: "altered" });
  });

  it.each([
    ["cut in the signature", (r: string) => r.slice(0, -5)],
    ["cut in the payload", (r: string) => r.slice(0, r.indexOf(".") + 30)],
    ["cut after the header", (r: string) => r.slice(0, r.indexOf("."))],
    ["empty", () => ""],
    ["not a JWT at all", () => "hello"],
  ])("calls a request %s incomplete", async (_name, cut) => {
    const rt = await testRuntime();
    expect(await verdict(rt, cut(await signedRequest(rt)))).toEqual({ usable: false, problem: "incomplete" });
  });

  it("reads and writes nothing in storage", async () => {
    const counter = new OperationCounter();
    const rt = await testRuntime({ wrapStore: (store) => counter.wrap(store) });
    const request = await signedRequest(rt);
    counter.reset();
    await verdict(rt, request);
    rt.clock.advance(SIXTEEN_MINUTES);
    await verdict(rt, request);
    await verdict(rt, withClaim(request, "state", "x"));
    expect(counter.snapshot()).toEqual({ reads: 0, writes: 0, deletes: 0, lists: 0 });
  });

  it("answers this site's own pages only", async () => {
    const rt = await testRuntime();
    const response = await check(rt, await signedRequest(rt), {
      Origin: "https://evil.example",
      "Sec-Fetch-Site": "cross-site",
    });
    expect(response.status).toBe(403);
    expect(response.headers.get("content-type")).toContain("application/json");
  });

  it("answers GET with 405, and an unknown step with 404", async () => {
    const rt = await testRuntime();
    const get = await endpoints.approve(new Request(`${BASE}${REQUEST_CHECK_PATH}`), rt, { ip: CLIENT_IP });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const unknown = await endpoints.approve(post("/auth/approve/other", {}, SAME_ORIGIN), rt, { ip: CLIENT_IP });
    expect(unknown.status).toBe(404);
  });
});

describe("the approve step says the same when the form comes back anyway", () => {
  async function refusal(rt: TestRuntime, request: string): Promise<string> {
    const response = await approve(rt, request);
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
    return response.text();
  }

  it("expired, with a link back to the app", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    rt.clock.advance(SIXTEEN_MINUTES);
    const page = await refusal(rt, request);
    expect(page).toContain("This sign-in request has expired");
    expect(page).toContain("Go back to the app and sign in again");
    expect(page).toContain(`href="${CLIENT_ID}"`);
  });

  it("changed, ten seconds old: not called expired, and no link to where it points", async () => {
    const rt = await testRuntime();
    const request = await signedRequest(rt);
    rt.clock.advance(TEN_SECONDS);
    const page = await refusal(rt, withClaim(request, "clientId", "https://evil.example/"));
    expect(page).toContain("This sign-in request was changed");
    expect(page).not.toMatch(/expired/i);
    expect(page).not.toContain("evil.example");
    expect(page).toContain("Go back to the app and sign in again");
  });

  it("cut short", async () => {
    const rt = await testRuntime();
    const page = await refusal(rt, (await signedRequest(rt)).slice(0, -5));
    expect(page).toContain("This sign-in request is incomplete");
    expect(page).not.toMatch(/expired/i);
  });
});

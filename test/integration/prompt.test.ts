// OIDC `prompt` at GET /auth and the approve step, in-process against the real local Blobs
// server (owner/approval-policy.ts decides; docs/endpoints.md says it in words): `consent` and
// `select_account` show the consent page as always (a session may still approve an app
// approved before: the owner clicks Approve on that page); `login` asks for the password or a
// passkey even with a live session, and the approve step enforces it from the signed request;
// `none` is answered without the sign-in page: login_required or consent_required, with state
// and iss, only after the redirect URI is verified; `none` with another value is
// invalid_request; unknown values are ignored.
import { describe, expect, it } from "vitest";
import { consoleSignIn } from "../helpers/console.ts";
import { approve, authorize, signedRequest } from "../helpers/endpoints.ts";
import { approvedBefore } from "../helpers/approved-app.ts";
import { authorizationParams, decodePayload, offerIn, redirectParams, REDIRECT_URI } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";

const SIGN_IN = "/indieauth/sign-in/#request=";

/** An app approved before with the password (its redirect URI trusted with errors), and a live session. */
async function signedInWithApprovedApp(
  build: "standalone" | "plugin" = "standalone",
): Promise<{ rt: TestRuntime; cookie: string }> {
  const rt = await approvedBefore(await testRuntime({ build }), REDIRECT_URI, undefined, ["profile", "create"]);
  return { rt, cookie: await consoleSignIn(rt, { remember: true }) };
}

function signedFrom(response: Response): string {
  const location = response.headers.get("location") ?? "";
  expect(response.status).toBe(303);
  expect(location.startsWith(SIGN_IN)).toBe(true);
  return new URLSearchParams(location.split("#")[1]).get("request")!;
}

/** An error sent back to the app's redirect URI: the code, state and iss, no sign-in page. */
function expectSentBack(response: Response, error: string): URLSearchParams {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("error_description")).toBeTruthy();
  expect(location.searchParams.get("state")).toBe("state-123");
  expect(location.searchParams.get("iss")).toBe("https://auth.jane.example/");
  expect(location.searchParams.get("code")).toBeNull();
  return location.searchParams;
}

async function codeCount(rt: TestRuntime): Promise<number> {
  return (await rt.store.list(RECORDS.code.prefix)).length;
}

describe("prompt=consent and select_account: the consent page, as always", () => {
  it.each(["consent", "select_account", "consent select_account"])(
    "prompt=%s shows the page and is signed into the request; a session still approves an app approved before",
    async (prompt) => {
      const { rt, cookie } = await signedInWithApprovedApp();
      const response = await authorize(rt, authorizationParams({ prompt }), { Cookie: cookie });
      const token = signedFrom(response);
      expect(decodePayload(token).prompt).toEqual(["consent"]);
      expect(offerIn(response)).toEqual({ session: true });
      // The owner's click on that page is the consent.
      const approved = await approve(rt, token, {
        password: null,
        headers: { Cookie: cookie },
        scopes: ["profile", "create"],
      });
      expect(approved.status).toBe(302);
      expect(redirectParams(approved).get("code")).toMatch(/^ic_/);
    },
  );
});

describe("prompt=login: the password or a passkey, even with a live session", () => {
  it("offers no Approve-alone, says why, and the approve step refuses the session alone", async () => {
    const { rt, cookie } = await signedInWithApprovedApp();
    // Without prompt, this session approves alone.
    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: cookie }))).toEqual({ session: true });
    const response = await authorize(rt, authorizationParams({ prompt: "login" }), { Cookie: cookie });
    expect(offerIn(response)).toEqual({ session: false, passkey: false, password: true, signedIn: "login" });
    const token = signedFrom(response);
    expect(decodePayload(token).prompt).toEqual(["login"]);
    const withSession = await approve(rt, token, {
      password: null,
      headers: { Cookie: cookie },
      scopes: ["profile", "create"],
    });
    expect(withSession.status).toBe(303);
    expect(new URLSearchParams(withSession.headers.get("location")!.split("#")[1]).get("error")).toBe("confirm");
    expect(await codeCount(rt)).toBe(0);
    const withPassword = await approve(rt, token, { headers: { Cookie: cookie }, scopes: ["profile", "create"] });
    expect(redirectParams(withPassword).get("code")).toMatch(/^ic_/);
  });

  it("the page cannot drop it: a request with prompt taken out is refused as altered", async () => {
    const { rt, cookie } = await signedInWithApprovedApp();
    const token = signedFrom(await authorize(rt, authorizationParams({ prompt: "login" }), { Cookie: cookie }));
    const [header, payload, signature] = token.split(".") as [string, string, string];
    const { prompt: _dropped, ...rest } = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<
      string,
      unknown
    >;
    const changed = `${header}.${Buffer.from(JSON.stringify({ ...rest, offer: { session: true } })).toString("base64url")}.${signature}`;
    const response = await approve(rt, changed, { password: null, headers: { Cookie: cookie }, scopes: ["profile"] });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/changed/i);
    expect(await codeCount(rt)).toBe(0);
  });

  it("prompt=login consent: both, in a space-separated list", async () => {
    const { rt, cookie } = await signedInWithApprovedApp();
    const response = await authorize(rt, authorizationParams({ prompt: "login consent" }), { Cookie: cookie });
    expect(decodePayload(signedFrom(response)).prompt).toEqual(["login", "consent"]);
    expect(offerIn(response)).toMatchObject({ session: false, signedIn: "login" });
  });

  it("without a session, the password is asked as always", async () => {
    const rt = await testRuntime();
    const response = await authorize(rt, authorizationParams({ prompt: "login" }));
    expect(offerIn(response)).toEqual({ session: false, passkey: false, password: true });
    expect(redirectParams(await approve(rt, signedFrom(response), { scopes: ["profile"] })).get("code")).toMatch(
      /^ic_/,
    );
  });
});

describe("prompt=none: answered without the sign-in page", () => {
  it("no session: login_required, with state and iss", async () => {
    const { rt } = await signedInWithApprovedApp();
    expectSentBack(await authorize(rt, authorizationParams({ prompt: "none" })), "login_required");
  });

  it("a session that may approve the app: consent_required (every approval is a click here)", async () => {
    const { rt, cookie } = await signedInWithApprovedApp();
    expectSentBack(
      await authorize(rt, authorizationParams({ prompt: "none" }), { Cookie: cookie }),
      "consent_required",
    );
    expect(await codeCount(rt)).toBe(0);
  });

  it("a session that may not approve alone: login_required (wider scope; a server sharing the blog's origin)", async () => {
    const { rt, cookie } = await signedInWithApprovedApp();
    expectSentBack(
      await authorize(rt, authorizationParams({ prompt: "none", scope: "profile create delete" }), { Cookie: cookie }),
      "login_required",
    );
    const shared = await signedInWithApprovedApp("plugin");
    expectSentBack(
      await authorize(shared.rt, authorizationParams({ prompt: "none" }), { Cookie: shared.cookie }),
      "login_required",
    );
  });

  it("an app never approved: the same answer, on a page with a link back (never an automatic redirect there)", async () => {
    const rt = await testRuntime();
    const response = await authorize(rt, authorizationParams({ prompt: "none" }));
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    const link = /<a class="button" href="([^"]*)">/
      .exec(await response.text())?.[1]
      ?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
    const back = new URL(link!);
    expect(back.searchParams.get("error")).toBe("login_required");
    expect(back.searchParams.get("iss")).toBe("https://auth.jane.example/");
  });

  it("before the redirect URI is verified, nothing goes to it", async () => {
    const { rt } = await signedInWithApprovedApp();
    const response = await authorize(
      rt,
      authorizationParams({ prompt: "none", redirect_uri: "https://evil.example/callback" }),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toMatch(/does not publish/);
  });

  it.each(["none login", "consent none", "none select_account", "none unknown"])(
    "prompt=%s: invalid_request",
    async (prompt) => {
      const { rt, cookie } = await signedInWithApprovedApp();
      const params = expectSentBack(
        await authorize(rt, authorizationParams({ prompt }), { Cookie: cookie }),
        "invalid_request",
      );
      expect(params.get("error_description")).toMatch(/prompt=none/);
    },
  );

  it("none named twice is still none", async () => {
    const { rt } = await signedInWithApprovedApp();
    expectSentBack(await authorize(rt, authorizationParams({ prompt: "none  none" })), "login_required");
  });
});

describe("unknown prompt values are ignored", () => {
  it.each([
    ["unknown", undefined],
    ["create", undefined],
    ["consent unknown", ["consent"]],
    [" login ", ["login"]],
  ])("prompt=%j", async (prompt, signed) => {
    const rt = await testRuntime();
    expect(decodePayload(await signedRequest(rt, authorizationParams({ prompt }))).prompt).toEqual(signed);
  });
});

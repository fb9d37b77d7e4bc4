// Each route's contract, as the frame (http/endpoint.ts) holds it whatever the handler does: a
// body the route does not accept or a field given twice is refused before any work (as an OAuth
// error on JSON routes, as a page on page routes); a session route without a session never
// reaches its handler; an answer that would send the browser where its route does not declare
// is stopped.
import { NO_SUBSCRIBERS } from "../../netlify/lib/platform/events.ts";
import { afterEach, describe, expect, it, vi } from "vitest";
import { endpoint, route } from "../../netlify/lib/http/endpoint.ts";
import { redirect } from "../../netlify/lib/http/responses.ts";
import { ownerSession } from "../../netlify/lib/endpoints/owner-caller.ts";
import { ACCOUNT_API } from "../../netlify/lib/pages/paths.ts";
import { consolePost, consoleSignIn } from "../helpers/console.ts";
import { approve, endpoints, signedRequest, signInForCode } from "../helpers/endpoints.ts";
import { BASE, CHROME_UA, CONSOLE_IP, codeForm, post, REDIRECT_URI } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";

afterEach(() => vi.restoreAllMocks());

async function expectOAuthRefusal(response: Response, words: RegExp | string): Promise<void> {
  expect(response.status).toBe(400);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as { error: string; error_description: string };
  expect(body.error).toBe("invalid_request");
  expect(body.error_description).toMatch(words);
}

describe("the body a route declares", () => {
  it("an OAuth route (POST /token) refuses a field given twice and a JSON body, before the code is used", async () => {
    const rt = await testRuntime();
    const signedIn = await signInForCode(rt);
    const twice = new URLSearchParams(codeForm(signedIn));
    twice.append("code_verifier", signedIn.verifier);
    await expectOAuthRefusal(
      await endpoints.token(post("/token", twice), rt),
      "The parameter code_verifier is given more than once.",
    );
    const asJson = new Request(`${BASE}/token`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(codeForm(signedIn)),
    });
    await expectOAuthRefusal(await endpoints.token(asJson, rt), /application\/x-www-form-urlencoded/);
    // Neither refusal consumed the code: the proper request still redeems it.
    expect((await endpoints.token(post("/token", codeForm(signedIn)), rt)).status).toBe(200);
  });

  it("a page route (POST /auth/approve) refuses a field given twice and a text body with a readable page; an undeclared field is ignored", async () => {
    const rt = await testRuntime();
    const again = await signedRequest(rt);
    const repeated = await endpoints.approve(
      post(
        "/auth/approve",
        new URLSearchParams([
          ["request", again],
          ["request", again],
          ["decision", "approve"],
        ]),
        { Origin: BASE, "Sec-Fetch-Site": "same-origin" },
      ),
      rt,
      { ip: CONSOLE_IP },
    );
    expect(repeated.status).toBe(400);
    expect(repeated.headers.get("content-type")).toMatch(/^text\/html/);
    expect(repeated.headers.get("location")).toBeNull();
    expect(await repeated.text()).toContain("The parameter request is given more than once.");
    const text = new Request(`${BASE}/auth/approve`, {
      method: "POST",
      headers: { Origin: BASE, "Sec-Fetch-Site": "same-origin", "Content-Type": "text/plain" },
      body: `request=${again}`,
    });
    const refused = await endpoints.approve(text, rt, { ip: CONSOLE_IP });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    // RFC 6749 3.1: an unrecognised field is ignored, never refused.
    expect((await approve(rt, again, { fields: { unheard_of: "x" } })).status).toBe(302);
  });

  it("a console route (POST /revoke of the account API) refuses a field given twice and a text body as JSON errors", async () => {
    const rt = await testRuntime();
    const cookie = await consoleSignIn(rt);
    const headers = { "User-Agent": CHROME_UA, "Sec-Fetch-Site": "same-origin", Origin: BASE, Cookie: cookie };
    const twice = new Request(`${BASE}${ACCOUNT_API}/revoke`, {
      method: "POST",
      headers,
      body: new URLSearchParams([
        ["app", "all"],
        ["app", "https://app.example.com/"],
      ]),
    });
    await expectOAuthRefusal(
      await endpoints.account(twice, rt, { ip: CONSOLE_IP, userAgent: CHROME_UA }),
      "The parameter app is given more than once.",
    );
    const text = new Request(`${BASE}${ACCOUNT_API}/revoke`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "text/plain" },
      body: "app=all",
    });
    await expectOAuthRefusal(
      await endpoints.account(text, rt, { ip: CONSOLE_IP, userAgent: CHROME_UA }),
      /application\/x-www-form-urlencoded/,
    );
  });
});

describe("who may call a route", () => {
  it("a session route without a session is refused with the ways to sign in, before its handler runs", async () => {
    const rt = await testRuntime();
    let ran = false;
    const probe = endpoint({
      events: NO_SUBSCRIBERS,
      POST: route({
        caller: "session",
        crossSite: "Own pages only.",
        owner: ownerSession,
        answers: "json",
        body: { form: [] },
        redirects: "none",
        run: async () => ((ran = true), new Response("ran")),
      }),
    });
    const response = await probe(post("/probe", {}, { Origin: BASE, "Sec-Fetch-Site": "same-origin" }), rt);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: "login_required",
      signIn: { password: true, passkey: false },
    });
    expect(ran).toBe(false);
    // The console's own: revoking every app needs the session, whatever the form says.
    const revoke = await consolePost(rt, "/revoke", { app: "all" });
    expect(revoke.status).toBe(401);
  });
});

describe("where a route's answers may send the browser", () => {
  const probe = (redirects: "none" | "own-pages" | "client", location: string, replyTo?: string) =>
    endpoint({
      events: NO_SUBSCRIBERS,
      GET: route({
        caller: "anyone",
        answers: "page",
        body: "none",
        redirects,
        run: async (ctx) => {
          if (replyTo) ctx.replyTo({ redirectUri: replyTo, trusted: true });
          return redirect(location, 302);
        },
      }),
    });

  async function expectStopped(response: Response): Promise<void> {
    expect(response.status).toBe(403);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("tried to send you somewhere it may not");
  }

  it("stops a Location on a route that declares none, an off-site one on an own-pages route, and a client one not given to replyTo; lets the declared ones through", async () => {
    const rt = await testRuntime();
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const get = new Request(`${BASE}/probe`);
    await expectStopped(await probe("none", "/sign-in/")(get, rt));
    await expectStopped(await probe("own-pages", "https://evil.example/")(get, rt));
    await expectStopped(await probe("client", REDIRECT_URI)(get, rt));
    await expectStopped(await probe("client", "https://evil.example/callback?code=x", REDIRECT_URI)(get, rt));
    expect(logged).toHaveBeenCalledTimes(4);
    expect(String(logged.mock.calls[0]![0])).toContain(
      "GET /probe answered a Location (/sign-in/) on a route that redirects nowhere",
    );
    // What the routes declare goes through: this site's own pages, the verified redirect URI.
    expect((await probe("own-pages", "/sign-in/#request=x")(get, rt)).headers.get("location")).toBe(
      "/sign-in/#request=x",
    );
    const back = `${REDIRECT_URI}?code=x&state=y`;
    expect((await probe("client", back, REDIRECT_URI)(get, rt)).headers.get("location")).toBe(back);
  });
});

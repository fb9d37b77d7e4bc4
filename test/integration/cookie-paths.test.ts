// The server's cookies go only to the paths that read them, in every setup: added to a blog on
// the blog's own host, the blog's pages, functions, edge functions on its own paths and its
// proxies to other services never get the owner's session or known-device cookie. The session
// still works everywhere it is read (GET /auth's offer, the approve step, the console's API,
// sign-out), read through a browser-like jar that sends a cookie only where its Path covers the
// request. A cookie of the same name set by another host of the site cannot hide ours.
import { parseSetCookie } from "cookie";
import { describe, expect, it } from "vitest";
import { THROTTLE_POLICY } from "../../netlify/lib/core/policy.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { fastRuntime } from "../helpers/attack-kit.ts";
import { consoleGet, consolePost, passkeysPost } from "../helpers/console.ts";
import { CookieJar, pathMatches } from "../helpers/cookie-jar.ts";
import { approve, authorize, signedRequest } from "../helpers/endpoints.ts";
import { TEST_PASSWORD } from "../helpers/env.ts";
import { passkeyAnswer, passkeySignIn, withPasskey } from "../helpers/passkey-owner.ts";
import { authorizationParams, offerIn } from "../helpers/requests.ts";
import type { TestRuntime } from "../helpers/runtime.ts";

/** Paths the server answers that read a cookie, each with the cookies it reads. */
const READERS = {
  "/auth": ["session"],
  "/auth/approve": ["session", "device"],
  "/indieauth/api/account": ["session", "device"],
  "/indieauth/api/account/sign-out": ["session", "device"],
  "/indieauth/api/passkeys/sign-in": ["session", "device"],
} as const;
/** Paths of the blog (or of the server's static pages, which read no cookie). */
const BLOG_PATHS = [
  "/",
  "/index.html",
  "/blog/",
  "/blog/2026/a-post/",
  "/authors/jane/",
  "/author",
  "/authorize",
  "/micropub",
  "/api/data",
  "/.netlify/functions/micropub",
  "/indieauth/",
  "/indieauth/account/",
  "/indieauth/apis",
  "/token",
  "/account",
];

const kindOf = (name: string) =>
  name.endsWith("indieauth_session") ? "session" : name.endsWith("indieauth_device") ? "device" : name;

const LOCAL = "http://localhost:8888";

/** Every Set-Cookie of the server's answers in a run of everything that sets one. */
async function everySetCookie(rt: TestRuntime): Promise<string[]> {
  const seen: string[] = [];
  const keep = (response: Response) => (seen.push(...response.headers.getSetCookie()), response);
  if (rt.config.ok && rt.config.config.development) {
    // Local development (its own origin, which the console's helpers do not speak for): the sign-in page.
    keep(
      await approve(rt, await signedRequest(rt, authorizationParams({ me: `${LOCAL}/` })), {
        remember: true,
        headers: { Origin: LOCAL },
      }),
    );
    return seen;
  }
  keep(await approve(rt, await signedRequest(rt), { remember: true }));
  const signIn = keep(await consolePost(rt, "/sign-in", { password: TEST_PASSWORD, remember: "true" }));
  const cookie = signIn.headers.getSetCookie()[0]!.split(";", 1)[0]!;
  const { authenticator } = await withPasskey(rt);
  keep(await passkeySignIn(rt, await passkeyAnswer(rt, authenticator)));
  keep(await passkeysPost(rt, "/registration-options", { password: TEST_PASSWORD }, { cookie }));
  keep(await consolePost(rt, "/sign-out", {}, { cookie }));
  return seen;
}

describe("every cookie of the server is scoped to the paths that read it", () => {
  it.each([
    ["standalone", {}],
    ["the plugin on the blog's own host", { build: "plugin" as const }],
    ["local development", { env: { CONTEXT: "dev", BASE_URL: LOCAL, ME: `${LOCAL}/` } }],
  ])("%s: a path, never /, that covers the server's readers and no path of the blog", async (_setup, options) => {
    const rt = await fastRuntime(options);
    const cookies = (await everySetCookie(rt)).map((c) => parseSetCookie(c));
    expect(new Set(cookies.map((c) => kindOf(c.name)))).toEqual(new Set(["session", "device"]));
    for (const cookie of cookies) {
      expect({ cookie: cookie.name, path: cookie.path }).not.toEqual({ cookie: cookie.name, path: "/" });
      expect(cookie.domain).toBeUndefined();
      for (const blogPath of BLOG_PATHS)
        expect({
          cookie: cookie.name,
          path: cookie.path,
          blogPath,
          sent: pathMatches(blogPath, cookie.path!),
        }).toMatchObject({ sent: false });
    }
    // ...and every reader gets each cookie it reads.
    for (const [reader, kinds] of Object.entries(READERS)) {
      for (const kind of kinds)
        expect({
          reader,
          kind,
          sent: cookies.some((c) => kindOf(c.name) === kind && pathMatches(reader, c.path!)),
        }).toMatchObject({ sent: true });
    }
  });

  it("through a browser's jar, the session serves GET /auth's offer, the approve step, the console's API and sign-out, and a blog path gets no cookie", async () => {
    const rt = await fastRuntime();
    const jar = new CookieJar();
    jar.receive(
      await approve(rt, await signedRequest(rt), { remember: true, scopes: ["profile", "create"] }),
      "/auth/approve",
    );
    expect(
      jar
        .list()
        .map((c) => c.path)
        .sort(),
    ).toEqual(["/auth", "/auth/approve", "/indieauth/api", "/indieauth/api"]);

    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: jar.header("/auth") }))).toEqual({
      session: true,
    });
    const again = await approve(rt, await signedRequest(rt), {
      password: null,
      headers: { Cookie: jar.header("/auth/approve") },
      scopes: ["profile", "create"],
    });
    expect(again.status).toBe(302);
    const console = await consoleGet(rt, { cookie: jar.header("/indieauth/api/account") });
    expect(console.status).toBe(200);
    for (const path of BLOG_PATHS) expect({ path, sent: jar.header(path) }).toEqual({ path, sent: "" });

    const signOut = await consolePost(rt, "/sign-out", {}, { cookie: jar.header("/indieauth/api/account/sign-out") });
    expect(signOut.status).toBe(200);
    jar.receive(signOut, "/indieauth/api/account/sign-out");
    // Every copy of the session is gone; the known device stays.
    expect(jar.list().every((c) => c.name === "__Secure-indieauth_device")).toBe(true);
    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: jar.header("/auth") }))).toMatchObject({
      session: false,
    });
    expect(await rt.store.list(RECORDS.session.prefix)).toEqual([]);
  });
});

describe("a cookie of the same name that another host of the site set (cookie tossing)", () => {
  const JUNK =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6ImluZGllYXV0aC1vd25lci1zZXNzaW9uK2p3dCJ9.eyJzaWQiOiJBQUFBQUFBQUFBQUFBQUFBQUFBQUFBIn0.AAAA";

  it("cannot hide the session: sent first (a longer path), the genuine copy after it is still read", async () => {
    const rt = await fastRuntime();
    const first = await approve(rt, await signedRequest(rt), { remember: true, scopes: ["profile", "create"] });
    const genuine = first.headers.getSetCookie()[0]!.split(";", 1)[0]!;
    const cookie = `__Secure-indieauth_session=${JUNK}; ${genuine}`;
    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: cookie }))).toEqual({ session: true });
    expect((await consoleGet(rt, { cookie })).status).toBe(200);
  });

  it("cannot hide the known device: while guessing goes on, the owner's browser is still judged by its own failures", async () => {
    const rt = await fastRuntime();
    const signIn = await approve(rt, await signedRequest(rt));
    const device = signIn.headers
      .getSetCookie()
      .find((c) => c.startsWith("__Secure-indieauth_device=") && c.includes("Path=/auth/approve"))!
      .split(";", 1)[0]!;
    for (let i = 0; i < THROTTLE_POLICY.globalFailures; i++)
      expect((await approve(rt, await signedRequest(rt), { password: "wrong", ip: `198.51.${i}.7` })).status).toBe(303);
    const tossed = `__Secure-indieauth_device=${JUNK}; ${device}`;
    expect((await approve(rt, await signedRequest(rt), { ip: "192.0.2.44", headers: { Cookie: tossed } })).status).toBe(
      302,
    );
  });
});

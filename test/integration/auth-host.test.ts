// The build plugin's auth host of its own (INDIEAUTH_HOST, a domain alias of the blog's site):
// the functions answer on that host only, so no page of the blog, on any of its other hosts,
// reaches them same-origin; there the server is not sharing the blog's origin, so a session
// approves what the owner approved before, as on a deployment of its own. (The static pages'
// rules for the two hosts: test/unit/plugin-auth-host.test.ts and test/e2e/blog-plugin.e2e.test.ts.)
import { describe, expect, it } from "vitest";
import { consoleSignIn, cookieFrom } from "../helpers/console.ts";
import { approve, authorize, endpoints, signedRequest } from "../helpers/endpoints.ts";
import { authorizationParams, offerIn, redirectParams } from "../helpers/requests.ts";
import { testRuntime, type TestRuntime } from "../helpers/runtime.ts";
import { RECORDS } from "../../netlify/lib/platform/records.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { loadConfig } from "../../netlify/lib/platform/config.ts";
import { testEnv } from "../helpers/env.ts";

const AUTH_HOST = {
  ME: "https://jane.example/",
  BASE_URL: "https://auth.jane.example",
  INDIEAUTH_HOST: "auth.jane.example",
};
const caller = { ip: "203.0.113.9", userAgent: "test" };

function authHostRuntime(): Promise<TestRuntime> {
  return testRuntime({ env: AUTH_HOST, build: "plugin" });
}

/** Every function's path, asked on `origin` as a blog page there would ask it. */
function blogHostRequests(origin: string): [string, (rt: TestRuntime) => Promise<Response>][] {
  const post = (path: string, body: string, type = "application/x-www-form-urlencoded") =>
    new Request(`${origin}${path}`, {
      method: "POST",
      body,
      headers: { "Content-Type": type, Origin: origin, "Sec-Fetch-Site": "same-origin" },
    });
  return [
    ["GET metadata", (rt) => endpoints.metadata(new Request(`${origin}/.well-known/oauth-authorization-server`), rt)],
    ["GET /auth", (rt) => endpoints.authorize(new Request(`${origin}/auth?${authorizationParams().toString()}`), rt)],
    [
      "POST /auth/approve",
      async (rt) =>
        endpoints.approve(
          post("/auth/approve", new URLSearchParams({ request: await signedRequest(rt), password: "x" }).toString()),
          rt,
          caller,
        ),
    ],
    ["POST /token", (rt) => endpoints.token(post("/token", "grant_type=authorization_code&code=ic_x"), rt)],
    [
      "GET console session",
      (rt) =>
        endpoints.account(
          new Request(`${origin}${ACCOUNT_API}/session`, { headers: { "Sec-Fetch-Site": "same-origin" } }),
          rt,
          caller,
        ),
    ],
    [
      "POST console revoke",
      (rt) =>
        endpoints.account(
          post(`${ACCOUNT_API}/revoke`, JSON.stringify({ app: "all" }), "application/json"),
          rt,
          caller,
        ),
    ],
    [
      "POST passkey options",
      (rt) => endpoints.passkeys(post(`${PASSKEYS_API}/authentication-options`, "{}", "application/json"), rt, caller),
    ],
  ];
}

describe("an auth host of its own (INDIEAUTH_HOST): the functions answer there only", () => {
  for (const origin of ["https://jane.example", "https://www.jane.example", "https://jane-blog.netlify.app"]) {
    it(`refuses every path on the blog's host ${origin} (404, not cached, no cookie), and does nothing`, async () => {
      const rt = await authHostRuntime();
      for (const [what, send] of blogHostRequests(origin)) {
        const response = await send(rt);
        expect({ what, status: response.status }).toEqual({ what, status: 404 });
        expect(await response.json()).toEqual({
          error: "not_found",
          error_description: "This IndieAuth server answers at https://auth.jane.example only.",
        });
        expect(response.headers.get("cache-control")).toBe("no-store");
        expect(response.headers.get("set-cookie")).toBeNull();
      }
      expect(await rt.store.list(RECORDS.code.prefix)).toEqual([]);
    });
  }

  it("on the auth host it is the server, and not sharing the blog's origin: a session approves an app approved before", async () => {
    const rt = await authHostRuntime();
    const metadata = await endpoints.metadata(
      new Request("https://auth.jane.example/.well-known/oauth-authorization-server"),
      rt,
    );
    expect(((await metadata.json()) as { issuer: string }).issuer).toBe("https://auth.jane.example/");
    const first = await approve(rt, await signedRequest(rt), { remember: true, scopes: ["profile", "create"] });
    const cookie = cookieFrom(first);
    expect(offerIn(await authorize(rt, authorizationParams(), { Cookie: cookie }))).toEqual({ session: true });
    const again = await approve(rt, await signedRequest(rt), {
      password: null,
      headers: { Cookie: cookie },
      scopes: ["profile", "create"],
    });
    expect(redirectParams(again).get("code")).toMatch(/^ic_/);
    expect(await consoleSignIn(rt)).toMatch(/^__Secure-indieauth_session=/);
  });
});

describe("INDIEAUTH_HOST is checked with the other variables", () => {
  it("is for the build plugin only", async () => {
    const result = loadConfig(await testEnv(AUTH_HOST), "standalone");
    expect(result.ok ? [] : result.problems.map((p) => p.variable)).toEqual(["INDIEAUTH_HOST"]);
  });

  it("must be BASE_URL's host, and a host name only (a port in development only)", async () => {
    for (const env of [
      { ...AUTH_HOST, BASE_URL: "https://jane.example" },
      { ...AUTH_HOST, BASE_URL: undefined, URL: "https://jane.example" },
      { ...AUTH_HOST, INDIEAUTH_HOST: "https://auth.jane.example/" },
      { ...AUTH_HOST, INDIEAUTH_HOST: "auth.jane.example:8443", BASE_URL: "https://auth.jane.example:8443" },
    ]) {
      const result = loadConfig(await testEnv(env), "plugin");
      expect({ env, problems: result.ok ? [] : result.problems.map((p) => p.variable) }).toEqual({
        env,
        problems: ["INDIEAUTH_HOST"],
      });
    }
    const local = loadConfig(
      await testEnv({
        ME: "http://localhost:8888/",
        BASE_URL: "http://auth.localhost:8888",
        INDIEAUTH_HOST: "auth.localhost:8888",
        CONTEXT: "dev",
      }),
      "plugin",
    );
    expect(local.ok && local.config.setup).toBe("auth-host");
  });

  it("unset, the plugin's server shares the blog's origin, and a deployment of its own is standalone", async () => {
    const shared = loadConfig(
      await testEnv({ ME: "https://jane.example/", BASE_URL: "https://www.jane.example" }),
      "plugin",
    );
    expect(shared.ok && shared.config.setup).toBe("shared-origin");
    const own = loadConfig(await testEnv(), "standalone");
    expect(own.ok && own.config.setup).toBe("standalone");
  });
});

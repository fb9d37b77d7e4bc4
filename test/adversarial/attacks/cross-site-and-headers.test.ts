// Attack catalogue: cross-site requests, framing and missing security headers.
//  - Every state-changing function (the approve step, the console API's POSTs, the passkey
//    API's POSTs) refuses a request another site makes a browser send, even with the owner's
//    session cookie and a body that would otherwise succeed, and changes nothing in the store.
//  - The token endpoints are CORS-open on purpose: they must never set or read a cookie.
//  - Every page, static or function-rendered, forbids framing and sniffing and sends no referrer.
import { NO_SUBSCRIBERS } from "../../../netlify/lib/platform/events.ts";
import { readdir, readFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { parse } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountApi } from "../../../netlify/lib/endpoints/account.ts";
import { approveEndpoint } from "../../../netlify/lib/endpoints/approve.ts";
import { passkeysApi } from "../../../netlify/lib/endpoints/passkey-api.ts";
import { revocationEndpoint } from "../../../netlify/lib/endpoints/revocation.ts";
import { tokenEndpoint } from "../../../netlify/lib/endpoints/token.ts";
import { introspectionEndpoint } from "../../../netlify/lib/endpoints/token-verification.ts";
import { userinfoEndpoint } from "../../../netlify/lib/endpoints/userinfo.ts";
import { endpoint, route } from "../../../netlify/lib/http/endpoint.ts";
import { addPasskey } from "../../../netlify/lib/owner/passkey-records.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../../netlify/lib/pages/paths.ts";
import { THROTTLE_POLICY } from "../../../netlify/lib/core/policy.ts";
import { buildSite } from "../../../scripts/build.ts";
import { fastRuntime, storeSnapshot } from "../../helpers/attack-kit.ts";
import { consoleSignIn } from "../../helpers/console.ts";
import { approve, authorize, signedRequest } from "../../helpers/endpoints.ts";
import { authorizationParams, BASE, CHROME_UA } from "../../helpers/requests.ts";
import { tokensFor } from "../../helpers/tokens.ts";
import { TEST_PASSWORD, testEnv } from "../../helpers/env.ts";
import type { TestRuntime } from "../../helpers/runtime.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

// ---------------------------------------------------------------------------------------
// Cross-site posts

/** What another site can make a browser send (and what a non-browser sends without headers). */
const CROSS_SITE: [string, Record<string, string>][] = [
  ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" }],
  ["Sec-Fetch-Site: cross-site, claiming our Origin", { "Sec-Fetch-Site": "cross-site", Origin: BASE }],
  [
    "Sec-Fetch-Site: cross-site, Origin: null (a no-referrer page elsewhere)",
    { "Sec-Fetch-Site": "cross-site", Origin: "null" },
  ],
  [
    "Sec-Fetch-Site: same-site (a sibling subdomain such as the blog)",
    { "Sec-Fetch-Site": "same-site", Origin: "https://blog.jane.example" },
  ],
  [
    "Sec-Fetch-Site: same-site, Origin: null (a no-referrer page on a sibling subdomain)",
    { "Sec-Fetch-Site": "same-site", Origin: "null" },
  ],
  ["Sec-Fetch-Site: none (a typed or bookmarked navigation)", { "Sec-Fetch-Site": "none" }],
  [
    "Sec-Fetch-Site: same-origin with a foreign Origin",
    { "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" },
  ],
  ["no Sec-Fetch-Site and a foreign Origin (an older browser)", { Origin: "https://evil.example" }],
  ["no Sec-Fetch-Site and Origin: null (a sandboxed frame or data: page)", { Origin: "null" }],
  ["no Sec-Fetch-Site and no Origin", {}],
];
const SAME_ORIGIN = { "Sec-Fetch-Site": "same-origin", Origin: BASE };

interface World {
  rt: TestRuntime;
  cookie: string;
  request: string;
}

/** A store with something to lose: a live grant, a session, a passkey, a signed request. */
async function world(): Promise<World> {
  const rt = await fastRuntime();
  await tokensFor(rt);
  const cookie = await consoleSignIn(rt, { remember: true });
  await addPasskey(rt.store, {
    id: "cred-1",
    name: "Laptop",
    publicKey: "AAAA",
    counter: 0,
    deviceType: "multiDevice",
    backedUp: true,
    createdAt: rt.now(),
  });
  return { rt, cookie, request: await signedRequest(rt) };
}

/** A form post, as a cross-site <form> can send one without a preflight. */
function formPost(
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string>,
  cookie: string,
): Request {
  return new Request(`${BASE}${path}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "User-Agent": CHROME_UA, Cookie: cookie, ...headers },
  });
}

interface Target {
  name: string;
  send(w: World, headers: Record<string, string>): Promise<Response>;
  /** Whether the same request from our own page changes the store (the control). */
  changes: boolean;
}

const info = { ip: "198.51.100.20", userAgent: CHROME_UA };
const account = (action: string, fields: Record<string, string>, changes: boolean): Target => ({
  name: `POST ${ACCOUNT_API}${action}`,
  send: (w, headers) => accountApi(formPost(`${ACCOUNT_API}${action}`, fields, headers, w.cookie), w.rt, info),
  changes,
});
const passkeys = (action: string, fields: Record<string, string>, changes: boolean): Target => ({
  name: `POST ${PASSKEYS_API}${action}`,
  send: (w, headers) => passkeysApi(formPost(`${PASSKEYS_API}${action}`, fields, headers, w.cookie), w.rt, info),
  changes,
});

const TARGETS: Target[] = [
  {
    name: "POST /auth/approve",
    send: (w, headers) =>
      approveEndpoint(
        formPost(
          "/auth/approve",
          { request: w.request, decision: "approve", password: TEST_PASSWORD, remember: "on" },
          headers,
          w.cookie,
        ),
        w.rt,
        info,
      ),
    changes: true,
  },
  account("/sign-in", { password: TEST_PASSWORD, remember: "true" }, true),
  account("/sign-out", { device: "all" }, true),
  account("/revoke", { app: "all" }, true),
  account("/passkeys/rename", { id: "cred-1", name: "Attacker's key" }, true),
  account("/passkeys/delete", { id: "cred-1", password: TEST_PASSWORD }, true),
  passkeys("/authentication-options", {}, false),
  // Junk that cannot be the owner's passkey writes nothing even from our own page (owner-lockout.test.ts).
  passkeys("/sign-in", { ticket: "x", response: '{"id":"cred-1","response":{}}' }, false),
  passkeys("/registration-options", { password: TEST_PASSWORD }, true),
  passkeys("/registration", { ticket: "x", response: '{"id":"cred-2","response":{}}', name: "Attacker's key" }, false),
];

describe("cross-site posts: every state-changing function refuses them and changes nothing", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });

  describe.each(TARGETS.map((t) => [t.name, t] as const))("%s", (_name, target) => {
    it.each(CROSS_SITE)("%s: 403, no cookie set, the store unchanged", async (_variant, headers) => {
      const before = await storeSnapshot(w.rt.store);
      const response = await target.send(w, headers);
      expect(response.status).toBe(403);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(response.headers.get("location")).toBeNull();
      expect(await storeSnapshot(w.rt.store)).toEqual(before);
    });

    it("the control: the same request from our own page is not refused", async () => {
      const own = await world();
      const before = await storeSnapshot(own.rt.store);
      const response = await target.send(own, SAME_ORIGIN);
      expect(response.status).not.toBe(403);
      if (target.changes) expect(await storeSnapshot(own.rt.store)).not.toEqual(before);
    });
  });

  it("the session cookie is itself held back from cross-site posts: __Secure-, HttpOnly, Secure, SameSite=Lax (Strict for the console's API), this host only", async () => {
    const rt = await fastRuntime();
    const cookie = await consoleSignIn(rt);
    expect(cookie.startsWith("__Secure-")).toBe(true);
    const response = await approve(rt, await signedRequest(rt), { remember: true });
    const sessions = response.headers.getSetCookie().filter((c) => c.startsWith("__Secure-indieauth_session="));
    expect(sessions).toHaveLength(2);
    for (const session of sessions) {
      const attributes = session.split(";").map((a) => a.trim().toLowerCase());
      expect(attributes).toEqual(expect.arrayContaining(["httponly", "secure"]));
      expect(attributes).toContain(attributes.includes("path=/auth") ? "samesite=lax" : "samesite=strict");
      expect(attributes.some((a) => a.startsWith("domain="))).toBe(false);
    }
  });
});

// ---------------------------------------------------------------------------------------
// The CORS-open token endpoints never touch cookies

/** Relative imports of a module, static and dynamic, resolved to repository paths. */
async function importsOf(file: string): Promise<string[]> {
  const source = await readFile(join(ROOT, file), "utf8");
  const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
  return specifiers.map((s) => (s.startsWith(".") ? relative(ROOT, join(ROOT, file, "..", s)) : s));
}

async function reachable(entry: string): Promise<Set<string>> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.endsWith(".ts")) queue.push(...(await importsOf(file)));
  }
  return seen;
}

describe("CORS-open endpoints (token, introspection, revocation, userinfo, metadata, registration) never set or read cookies", () => {
  it.each(["token", "introspect", "revoke", "userinfo", "metadata", "register"])(
    "netlify/functions/%s.ts cannot reach the session module or a cookie parser",
    async (fn) => {
      const modules = await reachable(`netlify/functions/${fn}.ts`);
      expect(modules.has("netlify/lib/http/responses.ts")).toBe(true);
      expect(
        [...modules].filter(
          (m) =>
            m === "netlify/lib/owner/sessions.ts" ||
            m === "cookie" ||
            /owner\/sign-in|endpoints\/(account|approve|passkeys)/.test(m),
        ),
      ).toEqual([]);
    },
  );

  it.each(["token", "introspect", "revoke", "userinfo", "register"])(
    "/%s's preflight allows any origin but never credentials",
    async (fn) => {
      const handler = (
        (await import(`../../../netlify/functions/${fn}.ts`)) as { default: (req: Request) => Promise<Response> }
      ).default;
      const response = await handler(
        new Request(`${BASE}/${fn}`, {
          method: "OPTIONS",
          headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "POST" },
        }),
      );
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
      expect(response.headers.get("access-control-allow-headers")?.toLowerCase()).not.toContain("cookie");
    },
  );

  it("a live session cookie alone authorises nothing there, and no answer sets a cookie", async () => {
    const rt = await fastRuntime();
    const cookie = await consoleSignIn(rt);
    const tokens = await tokensFor(rt);
    const cross = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site", Cookie: cookie };
    const calls: [string, (req: Request) => Promise<Response>, Request, number][] = [
      ["userinfo", (req) => userinfoEndpoint(req, rt), new Request(`${BASE}/userinfo`, { headers: cross }), 401],
      [
        "introspect",
        (req) => introspectionEndpoint(req, rt),
        new Request(`${BASE}/introspect`, {
          method: "POST",
          headers: cross,
          body: new URLSearchParams({ token: tokens.access_token }),
        }),
        401,
      ],
      ["legacy GET /token", (req) => tokenEndpoint(req, rt), new Request(`${BASE}/token`, { headers: cross }), 401],
      [
        "refresh without a token",
        (req) => tokenEndpoint(req, rt),
        new Request(`${BASE}/token`, {
          method: "POST",
          headers: cross,
          body: new URLSearchParams({ grant_type: "refresh_token", client_id: "https://app.example.com/" }),
        }),
        400,
      ],
      [
        "revoke without a token",
        (req) => revocationEndpoint(req, rt),
        new Request(`${BASE}/revoke`, { method: "POST", headers: cross, body: new URLSearchParams({}) }),
        400,
      ],
    ];
    for (const [name, handler, request, status] of calls) {
      const response = await handler(request);
      expect([name, response.status]).toEqual([name, status]);
      expect(response.headers.get("set-cookie")).toBeNull();
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });
});

// ---------------------------------------------------------------------------------------
// Framing and security headers

interface HeaderRule {
  for: string;
  values: Record<string, string>;
}
const toml = parse(await readFile(join(ROOT, "netlify.toml"), "utf8")) as unknown as { headers: HeaderRule[] };

/** Netlify's `for` patterns as used here: "/x/*" covers /x, /x/ and below; others are exact. */
function headersFor(path: string): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const rule of toml.headers) {
    const pattern = rule.for;
    const matches = pattern.endsWith("/*")
      ? path === pattern.slice(0, -2) || path.startsWith(pattern.slice(0, -1))
      : path === pattern;
    if (matches) Object.assign(merged, rule.values);
  }
  return merged;
}

function directives(csp: string): Map<string, string> {
  return new Map(
    csp
      .split(";")
      .map((d) => d.trim())
      .filter((d) => d !== "")
      .map((d) => [d.split(/\s+/, 1)[0]!.toLowerCase(), d.slice(d.split(/\s+/, 1)[0]!.length).trim()]),
  );
}

/** What every page must carry, whoever renders it. */
function expectPageProtection(headers: Record<string, string> | Headers, where: string): void {
  const get = (name: string) =>
    headers instanceof Headers
      ? headers.get(name)
      : (Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1] ?? null);
  const csp = directives(get("content-security-policy") ?? "");
  expect({ where, frameAncestors: csp.get("frame-ancestors") }).toEqual({ where, frameAncestors: "'none'" });
  expect({ where, xfo: get("x-frame-options") }).toEqual({ where, xfo: "DENY" });
  expect({ where, nosniff: get("x-content-type-options") }).toEqual({ where, nosniff: "nosniff" });
  expect({ where, referrer: get("referrer-policy") }).toEqual({ where, referrer: "no-referrer" });
  // A window that opens the page (a script on the blog, in the plugin setup) gets no handle to it.
  expect({ where, opener: get("cross-origin-opener-policy") }).toEqual({ where, opener: "same-origin" });
  expect({ where, defaultSrc: csp.get("default-src") }).toEqual({ where, defaultSrc: "'none'" });
  expect({ where, baseUri: csp.get("base-uri") }).toEqual({ where, baseUri: "'none'" });
  expect({ where, script: csp.get("script-src") ?? "(none)" }).not.toEqual({
    where,
    script: expect.stringMatching(/unsafe|\*|data:|https:/),
  });
}

describe("framing and headers: the static pages (netlify.toml)", () => {
  it.each([
    "/",
    "/indieauth/",
    "/indieauth/sign-in/",
    "/indieauth/account/",
    "/indieauth/self-test/",
    "/indieauth/sign-in",
    "/indieauth/account",
  ])("%s: CSP frame-ancestors 'none', X-Frame-Options DENY, nosniff, no referrer, own scripts only", (path) => {
    expectPageProtection(headersFor(path), path);
    expect(directives(headersFor(path)["Content-Security-Policy"]!).get("script-src")).toBe("'self'");
  });

  it.each(["/indieauth/sign-in/", "/indieauth/account/", "/indieauth/self-test/"])("%s is never cached", (path) => {
    expect(headersFor(path)["Cache-Control"]).toBe("no-store");
  });

  describe("every page the build emits", () => {
    let out: string;
    let pages: string[];
    beforeAll(async () => {
      out = await mkdtemp(join(tmpdir(), "attacks-build-"));
      await buildSite(await testEnv({ CONTEXT: "dev" }), out);
      const files = (await readdir(out, { recursive: true })).filter((f) => f.endsWith(".html"));
      pages = files.map((f) => `/${f}`.replace(/index\.html$/, ""));
    });
    afterAll(async () => {
      await rm(out, { recursive: true, force: true });
    });

    it("is covered at its directory address", () => {
      expect(pages.length).toBeGreaterThanOrEqual(5);
      for (const page of pages) expectPageProtection(headersFor(page), page);
    });

    // A static host serves each page at its file address too (/index.html), which the exact
    // rules for "/" and "/indieauth/" would not cover.
    it("is covered at its file address (…/index.html) too", () => {
      for (const page of pages) expectPageProtection(headersFor(`${page}index.html`), `${page}index.html`);
    });
  });
});

describe("framing and headers: pages the functions render", () => {
  async function pages(): Promise<[string, Response][]> {
    const rt = await fastRuntime();
    const request = await signedRequest(rt);
    const throttled = await fastRuntime();
    const throttledRequest = await signedRequest(throttled);
    for (let i = 0; i < THROTTLE_POLICY.freeFailuresPerIp; i++)
      await approve(throttled, throttledRequest, { password: "wrong" });
    const failing = endpoint({
      events: NO_SUBSCRIBERS,
      GET: route({
        caller: "anyone",
        answers: "page",
        body: "none",
        redirects: "none",
        run: () => Promise.reject(new Error("storage down")),
      }),
    });
    const quiet = console.error;
    console.error = () => undefined;
    try {
      return [
        [
          "GET /auth, untrusted redirect",
          await authorize(rt, authorizationParams({ redirect_uri: "https://evil.example/" })),
        ],
        [
          "GET /auth, setup page",
          await authorize(await fastRuntime({ env: { SECRET: "short" } }), authorizationParams()),
        ],
        ["approve, cross-site refusal", await approve(rt, request, { headers: { "Sec-Fetch-Site": "cross-site" } })],
        ["approve, expired request", await approve(rt, `${request}x`)],
        ["approve, oversized body", await approve(rt, "x".repeat(70 * 1024))],
        ["approve, throttled", await approve(throttled, throttledRequest)],
        ["any function's unexpected failure", await failing(new Request(`${BASE}/auth`), rt)],
      ];
    } finally {
      console.error = quiet;
    }
  }

  it("every one forbids framing and sniffing, sends no referrer, runs no script and is never cached", async () => {
    for (const [where, response] of await pages()) {
      expect({ where, type: response.headers.get("content-type") }).toEqual({
        where,
        type: "text/html; charset=utf-8",
      });
      expectPageProtection(response.headers, where);
      expect({ where, script: directives(response.headers.get("content-security-policy")!).get("script-src") }).toEqual(
        { where, script: undefined },
      );
      expect({ where, cache: response.headers.get("cache-control") }).toEqual({ where, cache: "no-store" });
    }
  });

  it("the hand-over from GET /auth to the sign-in page cuts the opener's handle too (Cross-Origin-Opener-Policy)", async () => {
    const rt = await fastRuntime();
    const response = await authorize(rt, authorizationParams());
    expect(response.status).toBe(303);
    expect(response.headers.get("cross-origin-opener-policy")).toBe("same-origin");
  });

  it("the redirect that carries a code sends no referrer and is never cached", async () => {
    const rt = await fastRuntime();
    const response = await approve(rt, await signedRequest(rt));
    expect(response.status).toBe(302);
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("JSON answers are nosniff and never cached, so none can be read as a page or from a cache", async () => {
    const rt = await fastRuntime();
    const responses = [
      await tokenEndpoint(
        new Request(`${BASE}/token`, { method: "POST", body: new URLSearchParams({ grant_type: "<b>x</b>" }) }),
        rt,
      ),
      await accountApi(new Request(`${BASE}${ACCOUNT_API}`), rt, info),
      await userinfoEndpoint(new Request(`${BASE}/userinfo`), rt),
    ];
    for (const response of responses) {
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("cache-control")).toBe("no-store");
    }
  });
});

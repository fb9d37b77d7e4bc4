// Fuzzing every parser on its own: URLs (profile URL, client_id, redirect URI,
// canonicalisation), scopes, form bodies, Authorization headers, Origin checks, session
// cookies, client documents (JSON metadata, h-app HTML, Link headers), the owner's page links,
// signed objects, and the HTML the server renders. Each never throws on any input, answers
// quickly, and keeps the invariants the endpoints rely on.
import fc, { type Arbitrary } from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AUTHORIZATION_REQUEST_STEPS,
  redirectUriVerified,
  type CheckState,
  type PipelineInput,
} from "../../../netlify/lib/protocol/authorization-request.ts";
import { runSteps } from "../../../netlify/lib/protocol/trust-steps.ts";
import { redirectToClient } from "../../../netlify/lib/protocol/authorization-response.ts";
import { parseClientDocument } from "../../../netlify/lib/clients/client-info.ts";
import { linkTargets, parseLinkHeader } from "../../../netlify/lib/clients/link-header.ts";
import { AnsweredError, UntrustedRedirect } from "../../../netlify/lib/errors.ts";
import { escapeHtml, renderMessagePage } from "../../../netlify/lib/http/message-page.ts";
import { readBody, type BodyRule } from "../../../netlify/lib/http/body.ts";
import { bearerToken, isSameOriginPost } from "../../../netlify/lib/http/request.ts";
import { passkeyName } from "../../../netlify/lib/owner/passkey-records.ts";
import { checkProfileLinks, DISCOVERY_RELS } from "../../../netlify/lib/owner/profile-links.ts";
import { signRequest, verifyRequest } from "../../../netlify/lib/protocol/request-object.ts";
import type { AuthorizationRequest } from "../../../netlify/lib/pages/sign-in-fragment.ts";
import { grantedScopes, parseScope } from "../../../netlify/lib/protocol/scopes.ts";
import {
  currentSession,
  hasSessionCookie,
  sessionCookieName,
  startSession,
} from "../../../netlify/lib/owner/sessions.ts";
import { signTyped, verifyTyped, type JwtKind } from "../../../netlify/lib/crypto/typed-jwt.ts";
import {
  canonicalUrl,
  parseClientId,
  parseProfileUrl,
  parseRedirectUri,
  sameOrigin,
} from "../../../netlify/lib/core/urls.ts";
import { deviceLabel } from "../../../netlify/lib/owner/user-agent.ts";
import { bareClient } from "../../helpers/runtime.ts";
import {
  answered,
  authorizationArb,
  bodyArb,
  buildRequest,
  configOf,
  cookieArb,
  encodeForm,
  expectSafeHtml,
  FETCH_SITES,
  formStyle,
  fuzzRuns,
  fuzzRuntime,
  headerString,
  hostileString,
  longString,
  MARKERS,
  mutatedPairs,
  ORIGINS,
  PH,
  propertyTimeout,
  quickly,
  resolvePlaceholders,
  SCRIPT_MARKER,
  seedNote,
  type Pairs,
} from "../../helpers/fuzz.ts";
import { BASE, CLIENT_ID, pkcePair, REDIRECT_URI } from "../../helpers/requests.ts";
import { documentArb, documentFor, linkHeaderArb, REDIRECTS } from "./documents.ts";
import { MAX_BODY_BYTES } from "../../../netlify/lib/core/policy.ts";

/** GET /auth's own checks, run as endpoints/authorize.ts runs them (before steps of its own). */
async function checkAuthorizationRequest(input: PipelineInput): Promise<AuthorizationRequest> {
  const state: CheckState = { input };
  await runSteps(AUTHORIZATION_REQUEST_STEPS, state, redirectUriVerified);
  return state.request!;
}

const RUNS = {
  urls: 2000,
  pipeline: 1000,
  scopes: 2000,
  readForm: 800,
  bearer: 2000,
  origin: 1000,
  cookies: 400,
  documents: 400,
  linkHeaders: 2000,
  profileLinks: 300,
  signedObjects: 600,
  typeConfusion: 200,
  redirectBack: 1000,
  html: 1000,
  names: 1000,
} as const;

// --- URLs ----------------------------------------------------------------------------------

const SCHEMES = [
  "https",
  "http",
  "HTTPS",
  "HtTp",
  "javascript",
  "data",
  "ftp",
  "file",
  "com.example.app",
  "",
  "h ttps",
  "https:",
] as const;
const SEPARATORS = ["://", ":", ":/", ":\\\\", "//", ":///", ":/\\", "://\t"] as const;
const HOSTS = [
  "app.example.com",
  "APP.Example.COM",
  "127.0.0.1",
  "[::1]",
  "localhost",
  "LOCALHOST",
  "0x7f000001",
  "2130706433",
  "0177.0.0.1",
  "10.0.0.1",
  "169.254.169.254",
  "[::ffff:127.0.0.1]",
  "[fe80::1%25eth0]",
  "xn--80ak6aa92e.com",
  "例え.jp",
  "a..b",
  "",
  "user:pw@app.example.com",
  "evil.example@app.example.com",
  "app.example.com.",
  "%61pp.example.com",
  "app.example.com\u3002evil",
  "jane.example",
] as const;
const PORTS = ["", ":443", ":80", ":8080", ":0", ":65536", ":abc", ":"] as const;
const PATHS = [
  "",
  "/",
  "/callback",
  "/a/../b",
  "/./",
  "/%2e%2e/",
  "/%2E/",
  "\\x",
  "/.%2e/",
  "/a b",
  "/%00",
  "/%zz",
  "//double",
  "/é",
  "/;x",
] as const;
const QUERIES = ["", "?x=1", "?", "?a=%zz", "?%C0%AF"] as const;
const FRAGMENTS = ["", "#", "#x", "%23x"] as const;

/** URL-shaped strings assembled from risky pieces, real URLs, and junk. */
const urlLike: Arbitrary<string> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...SCHEMES),
        fc.constantFrom(...SEPARATORS),
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...HOSTS) },
          { weight: 1, arbitrary: hostileString([], { long: false }) },
        ),
        fc.constantFrom(...PORTS),
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...PATHS) },
          { weight: 1, arbitrary: hostileString([], { long: false }).map((s) => `/${s}`) },
        ),
        fc.constantFrom(...QUERIES),
        fc.constantFrom(...FRAGMENTS),
      )
      .map((parts) => parts.join("")),
  },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  { weight: 1, arbitrary: fc.constantFrom(...REDIRECTS) },
  { weight: 1, arbitrary: hostileString() },
  { weight: 1, arbitrary: longString(5000).map((s) => `https://app.example.com/${s}`) },
);

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

describe("URLs", () => {
  it(`profile URLs, client ids and redirect URIs: never a throw, and every accepted URL keeps the rules ${seedNote(RUNS.urls)}`, () => {
    fc.assert(
      fc.property(urlLike, (raw) => {
        const profile = quickly("parseProfileUrl", () => parseProfileUrl(raw));
        const client = quickly("parseClientId", () => parseClientId(raw));
        const redirect = quickly("parseRedirectUri", () => parseRedirectUri(raw));
        for (const checked of [profile, client, redirect]) {
          if (!checked.ok) {
            expect(typeof checked.reason).toBe("string");
            continue;
          }
          const { url } = checked;
          expect(url.hash).toBe("");
          expect(url.username + url.password).toBe("");
          expect(raw.length).toBeLessThanOrEqual(2048);
          expect(raw).not.toMatch(/[\s\\#]/);
        }
        for (const checked of [profile, client]) {
          if (!checked.ok) continue;
          expect(["http:", "https:"]).toContain(checked.url.protocol);
          // No "." or ".." segment was quietly resolved away.
          expect(raw.toLowerCase()).not.toMatch(/\/(\.|%2e){1,2}(\/|$|\?)/);
        }
        if (profile.ok) {
          expect(profile.url.port).toBe("");
          expect(profile.url.hostname).not.toMatch(IPV4);
          expect(profile.url.hostname.startsWith("[")).toBe(false);
          expect(profile.url.hostname).not.toBe("localhost");
        }
        if (client.ok && (IPV4.test(client.url.hostname) || client.url.hostname.startsWith("["))) {
          expect(["127.0.0.1", "[::1]"]).toContain(client.url.hostname);
        }
        if (redirect.ok)
          expect(["javascript:", "data:", "vbscript:", "file:", "blob:", "about:"]).not.toContain(
            redirect.url.protocol,
          );
      }),
      fuzzRuns(RUNS.urls),
    );
  });

  it(`canonicalUrl never throws, is idempotent, and keeps accepted client ids acceptable ${seedNote(RUNS.urls)}`, () => {
    fc.assert(
      fc.property(urlLike, urlLike, (raw, other) => {
        const canonical = quickly("canonicalUrl", () => canonicalUrl(raw));
        expect(canonicalUrl(canonical)).toBe(canonical);
        const client = parseClientId(raw);
        if (client.ok && client.url.href.length <= 2048) {
          const again = parseClientId(client.url.href);
          expect(again.ok && again.url.href).toBe(client.url.href);
        }
        const a = parseRedirectUri(raw);
        const b = parseRedirectUri(other);
        if (a.ok && b.ok) expect(sameOrigin(a.url, b.url)).toBe(sameOrigin(b.url, a.url));
      }),
      fuzzRuns(RUNS.urls),
    );
  });
});

// --- The authorization request pipeline ----------------------------------------------------

describe("the authorization request pipeline", () => {
  const names = [
    "response_type",
    "client_id",
    "redirect_uri",
    "state",
    "code_challenge",
    "code_challenge_method",
    "scope",
    "me",
  ] as const;
  const valid = fc.constant<Pairs>([
    ["response_type", "code"],
    ["client_id", CLIENT_ID],
    ["redirect_uri", REDIRECT_URI],
    ["state", "s"],
    ["code_challenge", pkcePair().challenge],
    ["code_challenge_method", "S256"],
    ["scope", "profile create"],
    ["me", "https://jane.example/"],
  ]);
  const values = fc.oneof(
    urlLike,
    hostileString([
      "code",
      "id",
      "S256",
      "plain",
      "profile email",
      "jane.example",
      "https://jane.example/",
      "http://jane.example",
    ]),
  );

  const loopback = (params: URLSearchParams): boolean => {
    const redirectUri = new URL(params.get("redirect_uri")!);
    return redirectUri.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(redirectUri.hostname);
  };
  /** Errors go to the client by redirect only for a loopback redirect URI or one approved before
   * (discovery here publishes nothing). */
  const trustedFor = (params: URLSearchParams): boolean =>
    loopback(params) ||
    (new URL(params.get("client_id")!).href === CLIENT_ID &&
      new URL(params.get("redirect_uri")!).href === REDIRECT_URI);
  // The endpoint's rule (endpoints/error-redirects.ts) as the pipeline sees it: loopback, or the
  // test client with its usual redirect URI, approved before.
  const errorsMayRedirect = async (clientId: string, redirectUri: string) => {
    const url = new URL(redirectUri);
    return (
      (url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname)) ||
      (clientId === CLIENT_ID && redirectUri === REDIRECT_URI)
    );
  };

  it(`fails only as UntrustedRedirect (before the redirect URI is verified) or an OAuth error for the client (after), redirected only where trusted ${seedNote(RUNS.pipeline)}`, async () => {
    await fc.assert(
      fc.asyncProperty(mutatedPairs(valid, names, values), formStyle, async (pairs, style) => {
        // As the endpoint reads them: from a real URL's query.
        const params = new URL(`${BASE}/auth?${encodeForm(pairs, style)}`).searchParams;
        let verified: { redirectUri: string; state?: string; trusted: boolean } | undefined;
        const onRedirectUriVerified = (target: { redirectUri: string; state?: string; trusted: boolean }) =>
          (verified = target);
        try {
          const request = await checkAuthorizationRequest({
            params,
            ownerMe: "https://jane.example/",
            discover: bareClient,
            knownClient: () => undefined,
            errorsMayRedirect,
            onRedirectUriVerified,
          });
          expect(sameOrigin(new URL(request.clientId), new URL(request.redirectUri))).toBe(true);
          expect(verified?.redirectUri).toBe(request.redirectUri);
          expect(verified?.trusted).toBe(trustedFor(params));
          expect(request.redirectUri).toBe(params.get("redirect_uri"));
          expect(request.state.length).toBeLessThanOrEqual(2048);
          // `me` is shown only as a short parsed URL: printable ASCII, at most 80 characters.
          expect(request.meMismatch ?? "https://x/").toMatch(/^https?:\/\/[\x21-\x7e]+…?$/);
          expect(request.meMismatch?.length ?? 0).toBeLessThanOrEqual(80);
        } catch (error) {
          if (error instanceof UntrustedRedirect) {
            expect(verified).toBeUndefined();
            return;
          }
          expect(error).toBeInstanceOf(AnsweredError);
          expect((error as AnsweredError).allowRedirect).toBe(true);
          expect(verified?.redirectUri).toBe(params.get("redirect_uri"));
          expect(verified?.trusted).toBe(trustedFor(params));
        }
      }),
      fuzzRuns(RUNS.pipeline),
    );
  });
});

// --- Scopes --------------------------------------------------------------------------------

describe("scopes", () => {
  const scopeString = fc.oneof(
    fc
      .array(
        fc.oneof(
          fc.constantFrom(
            "profile",
            "email",
            "create",
            "media",
            "x".repeat(64),
            "x".repeat(65),
            'a"b',
            "a\\b",
            "é",
            "",
          ),
          hostileString([], { long: false }),
        ),
        { maxLength: 40 },
      )
      .map((s) => s.join(" ")),
    hostileString(),
  );

  it(`parseScope: at most 32 distinct well-formed tokens, email only with profile ${seedNote(RUNS.scopes)}`, () => {
    fc.assert(
      fc.property(
        fc.option(scopeString),
        fc.array(hostileString(["profile", "email", "create"], { long: false }), { maxLength: 5 }),
        (raw, ticked) => {
          const parsed = quickly("parseScope", () => parseScope(raw));
          if (!parsed.ok) return;
          expect(parsed.scopes.length).toBeLessThanOrEqual(32);
          expect(new Set(parsed.scopes).size).toBe(parsed.scopes.length);
          for (const scope of parsed.scopes) expect(scope).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/);
          if (parsed.scopes.includes("email")) expect(parsed.scopes).toContain("profile");
          const granted = grantedScopes(parsed.scopes, ticked);
          for (const scope of granted) expect(parsed.scopes).toContain(scope);
          if (granted.includes("email")) expect(granted).toContain("profile");
        },
      ),
      fuzzRuns(RUNS.scopes),
    );
  });
});

// --- Request bodies and headers ------------------------------------------------------------

describe("request bodies and headers", () => {
  const anyForm = mutatedPairs(
    fc.constant<Pairs>([
      ["grant_type", "authorization_code"],
      ["code", "ic_x"],
      ["client_id", CLIENT_ID],
    ]),
    ["grant_type", "code", "client_id"],
    hostileString([CLIENT_ID]),
  );

  const ruleArb = fc.constantFrom<[BodyRule<string>, boolean]>(
    [{ form: [] }, false],
    [{ form: [] }, true],
    [{ oauthForm: [] }, true],
    [{ oauthForm: [], repeatable: ["code"] }, true],
  );

  it(
    `readForm: resolves to fields or refuses with 400, and with 413 exactly when the body or its declared length is over 64 KB ${seedNote(RUNS.readForm)}`,
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyArb(anyForm, { oversized: true }), ruleArb, async (body, [rule, answersJson]) => {
          const req = buildRequest({ method: "POST", target: "/token", headers: {}, body });
          const declared = Number(req.headers.get("content-length") ?? "0");
          const tooLarge = body.bytes.byteLength > MAX_BODY_BYTES || declared > MAX_BODY_BYTES;
          try {
            const { form } = await answered("readForm", () => readBody(req, rule, answersJson));
            expect(form).toBeInstanceOf(URLSearchParams);
            expect(tooLarge).toBe(false);
            // No name twice, but one the rule lets repeat.
            const repeatable: readonly string[] = (rule !== "none" && !("json" in rule) && rule.repeatable) || [];
            const names = [...form.keys()].filter((name) => !repeatable.includes(name));
            expect(new Set(names).size).toBe(names.length);
          } catch (error) {
            expect(error).toBeInstanceOf(AnsweredError);
            expect((error as AnsweredError).status).toBe(tooLarge ? 413 : 400);
          }
        }),
        fuzzRuns(RUNS.readForm),
      );
    },
    propertyTimeout(RUNS.readForm, 20),
  );

  it(`readForm: an urlencoded form under the limit reads back as sent ${seedNote(RUNS.readForm)}`, async () => {
    await fc.assert(
      fc.asyncProperty(
        anyForm,
        fc.constantFrom("application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=UTF-8", null),
        async (pairs, type) => {
          const encoded = encodeForm(pairs, "encoded");
          fc.pre(encoded.length > 0 && Buffer.byteLength(encoded) <= MAX_BODY_BYTES);
          // Bytes, not a string: a string body would get a text/plain type of its own.
          const req = new Request(`${BASE}/token`, {
            method: "POST",
            body: Buffer.from(encoded),
            headers: type ? { "content-type": type } : {},
          });
          const copy = req.clone();
          const { form } = await answered("readForm", () =>
            readBody(req, { form: [], repeatable: [...new URLSearchParams(pairs).keys()] }, false),
          );
          expect(form.toString()).toBe(new URLSearchParams(pairs).toString());
          // The OAuth endpoints read it the same, or refuse a name given twice, naming it.
          const repeated = pairs.map(([name]) => name).find((name, i, names) => names.indexOf(name) !== i);
          const oauth = await answered("readForm", () =>
            readBody(copy, { oauthForm: [] }, true).then(
              ({ form: read }) => read,
              (error: unknown) => error,
            ),
          );
          if (repeated === undefined) expect(String(oauth)).toBe(form.toString());
          else
            expect(oauth).toMatchObject({
              status: 400,
              error: "invalid_request",
              description: expect.stringContaining("more than once"),
            });
        },
      ),
      fuzzRuns(RUNS.readForm),
    );
  });

  it(`bearerToken: null without a header, else a token68 credential or "malformed" ${seedNote(RUNS.bearer)}`, () => {
    fc.assert(
      fc.property(
        authorizationArb(() => ["iat_AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"]),
        (header) => {
          const req = new Request(BASE, { headers: header === null ? {} : { authorization: header } });
          const token = quickly("bearerToken", () => bearerToken(req));
          if (header === null) {
            expect(token).toBeNull();
            return;
          }
          expect(token).not.toBeNull();
          if (token !== "malformed") {
            expect(token).toMatch(/^[A-Za-z0-9\-._~+/]+=*$/);
            expect(req.headers.get("authorization")!.toLowerCase().startsWith("bearer ")).toBe(true);
          }
        },
      ),
      fuzzRuns(RUNS.bearer),
    );
  });

  it(`isSameOriginPost: never accepts another site, a cross-site fetch or a missing origin without Sec-Fetch-Site ${seedNote(RUNS.origin)}`, () => {
    fc.assert(
      fc.property(
        fc.option(fc.oneof(fc.constantFrom(...ORIGINS), headerString)),
        fc.option(fc.oneof(fc.constantFrom(...FETCH_SITES), headerString)),
        (origin, site) => {
          const headers: Record<string, string> = {};
          if (origin !== null) headers.origin = origin;
          if (site !== null) headers["sec-fetch-site"] = site;
          const req = new Request(`${BASE}/auth/approve`, { method: "POST", headers });
          const accepted = quickly("isSameOriginPost", () => isSameOriginPost(req, BASE));
          const sentOrigin = req.headers.get("origin");
          const sentSite = req.headers.get("sec-fetch-site");
          if (sentSite !== null && sentSite !== "same-origin") expect(accepted).toBe(false);
          if (sentOrigin !== null && sentOrigin !== BASE && sentOrigin !== "null") expect(accepted).toBe(false);
          if (sentSite === null && sentOrigin !== BASE) expect(accepted).toBe(false);
          if (sentSite === "same-origin" && sentOrigin === BASE) expect(accepted).toBe(true);
        },
      ),
      fuzzRuns(RUNS.origin),
    );
  });

  it(
    `session cookies: any Cookie header finds the live session only through its own cookie ${seedNote(RUNS.cookies)}`,
    async () => {
      const rt = await fuzzRuntime();
      const settings = configOf(rt);
      const name = sessionCookieName(false);
      const {
        session,
        setCookies: [setCookie],
      } = await startSession(
        rt.store,
        settings,
        { method: "password", persistent: true, ip: "192.0.2.1", userAgent: "fuzz" },
        rt.now(),
      );
      const jwt = setCookie!.split(";", 1)[0]!.slice(name.length + 1);
      await fc.assert(
        fc.asyncProperty(
          cookieArb(() => [`${name}=${PH.session}`], name),
          async (cookie) => {
            const spec = await resolvePlaceholders(
              { method: "GET", target: "/", headers: { cookie }, body: null },
              { session: () => jwt },
            );
            const req = buildRequest(spec);
            expect(typeof hasSessionCookie(req, settings)).toBe("boolean");
            const found = await answered("currentSession", () => currentSession(rt.store, req, settings, rt.now()));
            if (found === null) return;
            expect(found.id).toBe(session.id);
            expect(req.headers.get("cookie")).toContain(jwt);
          },
        ),
        fuzzRuns(RUNS.cookies),
      );
    },
    propertyTimeout(RUNS.cookies, 20),
  );
});

// --- Client documents and Link headers -----------------------------------------------------

describe("client documents", () => {
  const clientIds = fc.constantFrom(CLIENT_ID, "https://app.example.com/app?x=1", "http://127.0.0.1:8080/");

  it(
    `parseClientDocument: never throws, and what it reports is clean ${seedNote(RUNS.documents)}`,
    async () => {
      await fc.assert(
        fc.asyncProperty(documentArb, clientIds, async (generated, clientId) => {
          const info = await answered("parseClientDocument", () =>
            parseClientDocument(documentFor(generated, clientId), clientId),
          );
          expect(info.clientId).toBe(clientId);
          // A metadata document the draft refuses gives nothing of the app's, and says why (marked when
          // the refusal stops the sign-in: how it authenticates, or a client_id that is not its own).
          const { authenticationRefused: _auth, identityRefused: _identity, ...unmarked } = info;
          if (info.refused !== undefined)
            expect(unmarked).toEqual({ clientId, redirectUris: [], fetched: false, refused: info.refused });
          else expect(info.fetched).toBe(true);
          expect(info.redirectUris.length).toBeLessThanOrEqual(100);
          expect(new Set(info.redirectUris).size).toBe(info.redirectUris.length);
          for (const uri of info.redirectUris) {
            const checked = parseRedirectUri(uri);
            expect(checked.ok && checked.url.href, uri).toBe(uri);
          }
          if (info.name !== undefined) {
            expect(Array.from(info.name).length).toBeLessThanOrEqual(100);
            expect(info.name).toBe(info.name.trim());
            expect(info.name).not.toBe("");
            expect(info.name).not.toMatch(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u);
          }
          for (const url of [info.uri, info.logoUri])
            if (url !== undefined) expect(new URL(url).protocol).toMatch(/^https?:$/);
          // A metadata document's client_uri must be a prefix of client_id (an h-app's url is
          // not held to that: the sign-in page does not show it).
          const type = (generated.contentType.split(";", 1)[0] ?? "").trim().toLowerCase();
          const readAsJson =
            type === "application/json" ||
            type.endsWith("+json") ||
            documentFor(generated, clientId).body.trimStart().startsWith("{");
          if (readAsJson && info.uri !== undefined) expect(clientId.startsWith(info.uri)).toBe(true);
        }),
        fuzzRuns(RUNS.documents),
      );
    },
    propertyTimeout(RUNS.documents, 50),
  );

  it(`parseLinkHeader: never throws, quickly, even on 100 KB; targets are what sat between < and > ${seedNote(RUNS.linkHeaders)}`, () => {
    const header = fc.oneof(
      { weight: 4, arbitrary: fc.array(linkHeaderArb, { maxLength: 5 }).map((parts) => parts.join(", ")) },
      { weight: 2, arbitrary: hostileString(["<", ">", ";", "rel=", '"', "\\", ","]) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom("<a>;", "<", '"', '<a>; rel="', ";", ",", "<a>, ", '<a>; x="\\'),
            fc.integer({ min: 1000, max: 25_000 }),
          )
          .map(([unit, n]) => unit.repeat(n)),
      },
    );
    fc.assert(
      fc.property(header, fc.constantFrom("redirect_uri", ...DISCOVERY_RELS), (value, rel) => {
        const links = quickly("parseLinkHeader", () => parseLinkHeader(value));
        // One expect per property, not per link: a header can hold 20,000 links.
        const badLink = links.find(
          (link) =>
            link.target.includes(">") ||
            [...link.params.keys()].some((name) => name === "" || name !== name.toLowerCase()),
        );
        expect(badLink).toBeUndefined();
        // (Substring search is costly on 100 KB: the first links are enough.)
        for (const link of links.slice(0, 20)) expect(value).toContain(link.target);
        const parsedTargets = new Set(links.map((l) => l.target));
        const targets = quickly("linkTargets", () => linkTargets([value, value], rel));
        expect(targets.filter((target) => !parsedTargets.has(target))).toEqual([]);
      }),
      fuzzRuns(RUNS.linkHeaders),
    );
  });

  it(
    `checkProfileLinks: any page of the owner's (or a failed fetch) gives a report, never a throw ${seedNote(RUNS.profileLinks)}`,
    async () => {
      const rt = await fuzzRuntime();
      const config = configOf(rt);
      const failure = fc.oneof(
        fc.constant(new Error("ECONNREFUSED")),
        fc.constantFrom("a string", 42, null, undefined, { message: 1 }),
      );
      await fc.assert(
        fc.asyncProperty(documentArb, fc.option(failure, { freq: 5 }), async (generated, thrown) => {
          const report = await answered("checkProfileLinks", () =>
            checkProfileLinks(config, async (url) => {
              // eslint-disable-next-line @typescript-eslint/only-throw-error -- the fuzz throws what is not an Error on purpose.
              if (thrown !== null) throw thrown;
              return documentFor(generated, url.href);
            }),
          );
          expect(report.me).toBe(config.me);
          expect(report.checks.map((c) => c.rel)).toEqual([...DISCOVERY_RELS]);
          for (const check of report.checks) expect(check.ok).toBe(check.found === check.expected);
          if (!report.fetched) expect(typeof report.error).toBe("string");
        }),
        fuzzRuns(RUNS.profileLinks),
      );
    },
    propertyTimeout(RUNS.profileLinks, 50),
  );
});

// --- Signed objects ------------------------------------------------------------------------

describe("signed objects", () => {
  const b64 = (value: string) => Buffer.from(value).toString("base64url");
  const jsonText = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
    hostileString([], { long: false }),
  );
  const header = fc.oneof(
    fc
      .record(
        {
          alg: fc.constantFrom("none", "HS256", "RS256", "ES256", "", "hs256"),
          typ: fc.constantFrom("indieauth-request+jwt", "indieauth-session+jwt", "JWT", ""),
        },
        { requiredKeys: [] },
      )
      .map((h) => JSON.stringify(h)),
    jsonText,
  );
  const jwtShaped = fc
    .tuple(header, jsonText, fc.oneof(fc.constant(""), fc.base64String({ maxLength: 64 })))
    .map(([h, p, sig]) => `${b64(h)}.${b64(p)}.${sig.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")}`);
  const anyToken = fc.oneof(
    { weight: 3, arbitrary: jwtShaped },
    { weight: 1, arbitrary: hostileString(MARKERS) },
    { weight: 1, arbitrary: longString(20_000) },
  );

  it(
    `verifyRequest and verifyTyped refuse (with null, not a throw) anything the server did not sign ${seedNote(RUNS.signedObjects)}`,
    async () => {
      const rt = await fuzzRuntime();
      const config = configOf(rt);
      const kind: JwtKind = {
        key: config.keys.session,
        issuer: config.issuer,
        typ: "indieauth-session+jwt",
        audience: `${config.issuer}session`,
      };
      await fc.assert(
        fc.asyncProperty(anyToken, async (token) => {
          expect(
            await answered("verifyRequest", () =>
              verifyRequest(token, config.keys.requestObject, config.issuer, rt.now()),
            ),
          ).toBeNull();
          expect(await answered("verifyTyped", () => verifyTyped(token, kind, rt.now()))).toBeNull();
        }),
        fuzzRuns(RUNS.signedObjects),
      );
    },
    propertyTimeout(RUNS.signedObjects, 20),
  );

  it(`a signed object of one type (or with another key, issuer or audience) never verifies as another ${seedNote(RUNS.typeConfusion)}`, async () => {
    const rt = await fuzzRuntime();
    const config = configOf(rt);
    const kinds: JwtKind[] = [
      {
        key: config.keys.requestObject,
        issuer: config.issuer,
        typ: "indieauth-request+jwt",
        audience: `${config.issuer}auth/approve`,
      },
      {
        key: config.keys.session,
        issuer: config.issuer,
        typ: "indieauth-session+jwt",
        audience: `${config.issuer}session`,
      },
      {
        key: config.keys.webauthn,
        issuer: config.issuer,
        typ: "indieauth-webauthn+jwt",
        audience: `${config.issuer}webauthn`,
      },
    ];
    // Each of the three with one thing changed: the key, the issuer, the audience or the type.
    const variants = kinds.flatMap((k) => [
      { ...k, key: config.keys.requestObject === k.key ? config.keys.session : config.keys.requestObject },
      { ...k, issuer: "https://evil.example/" },
      { ...k, audience: `${k.audience}x` },
      { ...k, typ: "JWT" },
    ]);
    const claims = fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
    await fc.assert(
      fc.asyncProperty(
        fc.nat(kinds.length - 1),
        fc.nat(kinds.length + variants.length - 1),
        claims,
        async (signer, verifierIndex, payload) => {
          const all = [...kinds, ...variants];
          const signedWith = kinds[signer]!;
          const verifier = all[verifierIndex]!;
          const now = rt.now();
          const token = await signTyped(payload, signedWith, now, now + 60_000);
          const verified = await verifyTyped(token, verifier, now);
          if (verifier === signedWith) expect(verified).not.toBeNull();
          else expect(verified).toBeNull();
        },
      ),
      fuzzRuns(RUNS.typeConfusion),
    );
  });

  it(`a genuine request object with any generated content verifies to itself ${seedNote(RUNS.typeConfusion)}`, async () => {
    const rt = await fuzzRuntime();
    const config = configOf(rt);
    const text = hostileString([], { long: false });
    const request: Arbitrary<AuthorizationRequest> = fc.record({
      clientId: text,
      redirectUri: text,
      state: text,
      codeChallenge: text,
      scopes: fc.array(text, { maxLength: 4 }),
      client: fc.record({ name: text, logoUri: text, uri: text }, { requiredKeys: [] }),
    });
    await fc.assert(
      fc.asyncProperty(request, async (original) => {
        const token = await signRequest(original, config.keys.requestObject, config.issuer, rt.now());
        const verified = await verifyRequest(token, config.keys.requestObject, config.issuer, rt.now());
        // JSON escapes lone surrogates, so even those come back exactly.
        expect(verified?.request ?? null).toEqual(token.length > 16_384 ? null : original);
      }),
      fuzzRuns(RUNS.typeConfusion),
    );
  });
});

// --- Answers the server builds from generated text ------------------------------------------

describe("answers built from generated text", () => {
  const acceptedRedirects = fc
    .oneof(fc.constantFrom(...REDIRECTS), fc.webUrl({ withQueryParameters: true }))
    .filter((u) => parseRedirectUri(u).ok);
  // The server sends its own codes and descriptions, and the client's state (at most 2048).
  const value = fc.option(hostileString(MARKERS, { maxLength: 2048 }), { nil: undefined });

  it(`redirectToClient: the redirect URI's own place, each parameter once, iss last ${seedNote(RUNS.redirectBack)}`, () => {
    fc.assert(
      fc.property(
        acceptedRedirects,
        fc.record({ code: value, state: value, error: value, error_description: value, iss: value }),
        (redirectUri, params) => {
          const location = quickly("redirectToClient", () => redirectToClient(redirectUri, params, `${BASE}/`));
          const sent = new URL(location);
          const expected = new URL(redirectUri);
          expect([sent.protocol, sent.host, sent.pathname]).toEqual([
            expected.protocol,
            expected.host,
            expected.pathname,
          ]);
          expect(sent.searchParams.getAll("iss")).toEqual([`${BASE}/`]);
          for (const [name, raw] of Object.entries(params)) {
            if (name === "iss") continue;
            // URLSearchParams writes a lone surrogate as U+FFFD: compare through the same encoding.
            const roundTrip = raw === undefined ? [] : [new URLSearchParams([[name, raw]]).get(name)];
            expect(sent.searchParams.getAll(name)).toEqual(roundTrip);
          }
        },
      ),
      fuzzRuns(RUNS.redirectBack),
    );
  });

  it(`renderMessagePage: generated text never becomes markup ${seedNote(RUNS.html)}`, () => {
    const text = hostileString([SCRIPT_MARKER, "</p><script>", "<a href=x onclick=y>", "&lt;", "&#60;", "`", "'"], {
      maxLength: 10_000,
    });
    fc.assert(
      // Links as the server makes them: the sign-in page, with a (generated) request after it.
      fc.property(
        text,
        fc.array(text, { maxLength: 4 }),
        fc.option(fc.record({ href: text.map((t) => `/indieauth/sign-in/#request=${t}`), text })),
        (title, paragraphs, link) => {
          const html = quickly("renderMessagePage", () =>
            renderMessagePage({ title, paragraphs, ...(link ? { link } : {}) }),
          );
          expectSafeHtml(html);
          expect(escapeHtml(title)).not.toMatch(/[<>"'`]/);
        },
      ),
      fuzzRuns(RUNS.html),
    );
  });

  it(`passkey names and device labels: never a throw, bounded and printable ${seedNote(RUNS.names)}`, () => {
    fc.assert(
      fc.property(hostileString(), (raw) => {
        const name = quickly("passkeyName", () => passkeyName(raw));
        if (name !== null) {
          expect(name.length).toBeLessThanOrEqual(64);
          expect(name).not.toMatch(/[\u0000-\u001f\u007f]/);
        }
        expect(typeof quickly("deviceLabel", () => deviceLabel(raw))).toBe("string");
      }),
      fuzzRuns(RUNS.names),
    );
  });
});

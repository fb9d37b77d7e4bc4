// Client documents (IndieAuth 4.2) for the fuzz suite: what a client_id URL might serve,
// JSON metadata, HTML with an h-app and rel links, Link headers, or junk, with the redirect
// URIs an attacker or a confused client might publish. Shared by the GET /auth properties
// (authorization.test.ts) and the parser properties (parsers.test.ts).
import fc, { type Arbitrary } from "fast-check";
import type { FetchedDocument } from "../../../netlify/lib/clients/safe-fetch.ts";
import { headerString, hostileString, PH } from "../../helpers/fuzz.ts";
import { REDIRECT_URI } from "../../helpers/requests.ts";

/** Redirect URIs an attacker or a confused client might send or publish. */
export const REDIRECTS = [
  REDIRECT_URI,
  "https://app.example.com/callback?x=1",
  "https://APP.example.com:443/callback",
  "https://evil.example/cb",
  "https://evil.example/cb?x=1",
  "https://app.example.com.evil.example/cb",
  "http://app.example.com/callback",
  "https://app.example.com:8443/callback",
  "com.example.app:/cb",
  "http://127.0.0.1:9000/cb",
  "http://[::1]/cb",
  "/relative/cb",
  "//evil.example/x",
  "javascript:alert(1)",
  "data:text/html,<script>x</script>",
  "https://app.example.com/callback#frag",
  "https://user:pw@app.example.com/callback",
  "https://app.example.com/%2e%2e/callback",
  "https://app.example.com/a/../callback",
] as const;

/** A few favourites, so that a request often names a URI the document publishes. */
export const FAVOURITES = [
  "https://evil.example/cb",
  "com.example.app:/cb",
  REDIRECT_URI,
  "https://app.example.com.evil.example/cb",
  "http://127.0.0.1:9000/cb",
] as const;

export interface GeneratedDocument {
  contentType: string;
  /** May hold PH.client, replaced by the client_id being discovered (see documentFor). */
  body: string;
  linkHeaders: string[];
}

const uriValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FAVOURITES) },
  { weight: 2, arbitrary: fc.constantFrom(...REDIRECTS, PH.client) },
  { weight: 1, arbitrary: hostileString([], { long: false }) },
);

const jsonDocument: Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record(
        {
          client_id: fc.oneof({ weight: 4, arbitrary: fc.constant(PH.client) }, { weight: 1, arbitrary: uriValue }),
          client_name: fc.oneof(hostileString(["My App", "\u202eppA yM", " \t\n "]), fc.jsonValue({ maxDepth: 1 })),
          client_uri: uriValue,
          logo_uri: fc.oneof(uriValue, fc.jsonValue({ maxDepth: 1 })),
          redirect_uris: fc.oneof(
            { weight: 4, arbitrary: fc.array(uriValue, { maxLength: 6 }) },
            { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
          ),
        },
        { requiredKeys: [] },
      )
      .map((doc) => JSON.stringify(doc)),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "{",
      "{}",
      "[]",
      '{"client_id":',
      "\ufeff{}",
      "{" + '"a":'.repeat(1000),
      "[".repeat(5000),
    ),
  },
);

const htmlPiece = hostileString(
  [
    "My App",
    "<div>",
    "</div>",
    "<a href=x>",
    "<base href=/x/>",
    '<link rel="redirect_uri" href="/cb">',
    "<!--",
    "<template>",
    "<svg><style>",
  ],
  { long: false },
);

/** An h-app page with generated pieces inserted raw, so markup junk breaks its structure. */
const htmlDocument: Arbitrary<string> = fc
  .record({
    redirect: uriValue,
    url: uriValue,
    name: htmlPiece,
    logo: uriValue,
    junk: htmlPiece,
    appClass: fc.constantFrom("h-app", "h-x-app", "h-card", "h-app h-x-app"),
  })
  .map(
    ({ redirect, url, name, logo, junk, appClass }) =>
      `<!doctype html><html><head><link rel="redirect_uri" href="${redirect}"></head><body>${junk}<div class="${appClass}"><a class="u-url p-name" href="${url}">${name}</a><img class="u-logo" src="${logo}" alt="${name}"></div></body></html>`,
  );

/** Deeply nested or very long markup, for the parser's time and stack. */
const heavyHtml: Arbitrary<string> = fc
  .tuple(
    fc.constantFrom("<div class=h-app>", "<a>", "<p><b><i>", '<span class="h-x-app p-name">'),
    fc.integer({ min: 100, max: 5000 }),
  )
  .map(([open, depth]) => `${open.repeat(depth)}x`);

export const linkHeaderArb: Arbitrary<string> = fc.oneof(
  uriValue.map((u) => `<${u}>; rel="redirect_uri"`),
  fc.tuple(uriValue, uriValue).map(([a, b]) => `<${a}>; rel="redirect_uri other", <${b}>; rel=redirect_uri`),
  fc.constantFrom(
    "<",
    "<a",
    '<x>; rel="unterminated',
    "<x>; rel=redirect_uri; rel=other",
    ",,,",
    "<x> junk, <y>; rel=redirect_uri",
    '<x>; rel="a\\"b"; title*=UTF-8\'\'%e2',
    "<x>;;;=;rel=redirect_uri",
  ),
  headerString,
);

export const documentArb: Arbitrary<GeneratedDocument> = fc.record({
  contentType: fc.oneof(
    fc.constantFrom(
      "application/json",
      "text/html",
      "text/html; charset=utf-8",
      "",
      "application/xhtml+xml",
      "text/plain",
      "application/x+json",
    ),
    headerString,
  ),
  body: fc.oneof(
    { weight: 3, arbitrary: jsonDocument },
    { weight: 2, arbitrary: htmlDocument },
    { weight: 1, arbitrary: hostileString() },
    { weight: 1, arbitrary: heavyHtml },
  ),
  linkHeaders: fc.array(linkHeaderArb, { maxLength: 3 }),
});

/** The fetched document a client_id would have served (PH.client filled in, JSON-escaped in
 * what will be read as JSON). */
export function documentFor(generated: GeneratedDocument, clientId: string): FetchedDocument {
  const json = /json/i.test(generated.contentType) || generated.body.trimStart().startsWith("{");
  const body = generated.body.replaceAll(PH.client, json ? JSON.stringify(clientId).slice(1, -1) : clientId);
  return { url: clientId, status: 200, contentType: generated.contentType, linkHeaders: generated.linkHeaders, body };
}

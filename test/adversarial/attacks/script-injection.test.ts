// Attack catalogue: script injection. Every value an attacker controls (client_name, logo_uri,
// scope, state, me, redirect_uri, client_id, and the error descriptions that echo them) either
// reaches a server-rendered page escaped, or travels as data: inside the signed request, a
// percent-encoded query, or JSON served with nosniff.
//
// The static sign-in page and the owner console render that data in the browser with
// textContent only; that half is tested in a real browser by test/browser/sign-in.test.ts
// ("hostile values show as text and run nothing": scope, state, client name, logo and `me`) and
// test/browser/attacks.test.ts (a hostile app name and logo in the console).
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { parseClientDocument } from "../../../netlify/lib/clients/client-info.ts";
import { approveEndpoint } from "../../../netlify/lib/endpoints/approve.ts";
import { tokenEndpoint } from "../../../netlify/lib/endpoints/token.ts";
import { renderMessagePage } from "../../../netlify/lib/http/message-page.ts";
import { THROTTLE_POLICY } from "../../../netlify/lib/core/policy.ts";
import { expectShownAsText, fastRuntime, publishingClient } from "../../helpers/attack-kit.ts";
import { approvedBefore } from "../../helpers/approved-app.ts";
import { approve, authorize, signedRequest, userinfo } from "../../helpers/endpoints.ts";
import { authorizationParams, BASE, CLIENT_ID, decodePayload, REDIRECT_URI } from "../../helpers/requests.ts";

const SCRIPT = "<script>alert(1)</script>";
/** No whitespace, so that it passes the URL checks and reaches the page. */
const SVG = "<svg/onload=alert(2)>";

function discoverAs(info: { name?: string; logoUri?: string; redirectUris?: string[] }) {
  return async (clientId: URL) => ({
    clientId: clientId.href,
    redirectUris: info.redirectUris ?? [],
    fetched: true,
    ...info,
  });
}

async function pageHtml(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^text\/html/);
  expect(response.headers.get("location")).toBeNull();
  return response.text();
}

describe("script injection: server-rendered pages show hostile values as text", () => {
  it("every field of a message page (title, paragraphs, link text and href) is escaped", () => {
    const html = renderMessagePage({
      title: `${SCRIPT}title`,
      paragraphs: [`${SVG}paragraph`, `"'\`&<>`],
      link: { href: `"><script>alert(3)</script>`, text: `${SCRIPT}link` },
    });
    expectShownAsText(html, `${SCRIPT}title`);
    expectShownAsText(html, `${SVG}paragraph`);
    expectShownAsText(html, `${SCRIPT}link`);
    // The href cannot end its attribute early.
    expect(html).toMatch(/<a class="button" href="[^"<>]*">/);
  });

  it("redirect_uri on GET /auth's untrusted-redirect page (a custom scheme keeps < and > as typed)", async () => {
    const redirectUri = `x-app:${SCRIPT}${SVG}`;
    expect(new URL(redirectUri).href).toBe(redirectUri);
    const html = await pageHtml(
      await authorize(await fastRuntime(), authorizationParams({ redirect_uri: redirectUri })),
      400,
    );
    expectShownAsText(html, `asked to send you to ${redirectUri}`);
  });

  it("client_id on the same page: character references in it are shown literally, not decoded", async () => {
    const clientId = "https://app.example.com/?name=&lt;script&gt;alert(1)&lt;/script&gt;";
    const html = await pageHtml(
      await authorize(
        await fastRuntime(),
        authorizationParams({ client_id: clientId, redirect_uri: "https://evil.example/cb" }),
      ),
      400,
    );
    expectShownAsText(html, `The app ${clientId} asked`);
  });

  it("a configuration value quoted on the setup page (GET /auth and the approve step)", async () => {
    const baseUrl = `${SCRIPT}${SVG}`;
    const rt = await fastRuntime({ env: { BASE_URL: baseUrl } });
    expectShownAsText(
      await pageHtml(await authorize(rt, authorizationParams()), 500),
      `BASE_URL is not a URL: "${baseUrl}"`,
    );
    const post = new Request(`${BASE}/auth/approve`, {
      method: "POST",
      body: "request=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expectShownAsText(
      await pageHtml(await approveEndpoint(post, rt, { ip: "203.0.113.7" }), 500),
      `BASE_URL is not a URL: "${baseUrl}"`,
    );
  });

  it("the approve step's pages (refused, expired, throttled) echo none of the request's values", async () => {
    const rt = await fastRuntime({ discover: discoverAs({ name: `${SCRIPT}App` }) });
    const request = await signedRequest(
      rt,
      authorizationParams({ state: `"><script>alert(4)</script>`, scope: `create ${SCRIPT}`, me: SVG }),
    );
    const pages = [
      await pageHtml(
        await approve(rt, request, { headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" } }),
        403,
      ),
      await pageHtml(await approve(rt, `${request}x`), 400),
    ];
    for (let i = 0; i < THROTTLE_POLICY.freeFailuresPerIp; i++) await approve(rt, request, { password: "wrong" });
    pages.push(await pageHtml(await approve(rt, request), 429));
    for (const html of pages) {
      expect(html).not.toMatch(/<script|<svg|alert\(/i);
      expectShownAsText(html, "");
    }
  });
});

describe("script injection: values bound for the sign-in page travel inside the signed request", () => {
  it("state, scope and me cannot add to the fragment or put markup in the Location", async () => {
    const state = `"><script>alert(1)</script>&session=1&error=x`;
    const scope = `create ${SCRIPT}`;
    const me = `${SVG}&passkey=1`;
    const rt = await fastRuntime();
    const response = await authorize(rt, authorizationParams({ state, scope, me }));
    expect(response.status).toBe(303);
    const location = response.headers.get("location")!;
    expect(location).toMatch(/^\/indieauth\/sign-in\/#request=[\w-]+\.[\w-]+\.[\w-]+$/);
    const fragment = new URLSearchParams(location.split("#")[1]);
    expect([...fragment.keys()]).toEqual(["request"]);
    // The values are intact, as data, for the page to show with textContent; `me` only as a
    // parsed URL, and this one is none.
    expect(decodePayload(fragment.get("request")!)).toMatchObject({ state, scopes: ["create", SCRIPT] });
    expect(decodePayload(fragment.get("request")!)).not.toHaveProperty("meMismatch");
  });

  it("client_name: kept as inert text, with control characters and bidi overrides (which make text read backwards) removed", async () => {
    const name = `${SCRIPT}\u202Egnp.exe\u0000\u2066x`;
    const doc = {
      url: CLIENT_ID,
      status: 200,
      contentType: "application/json",
      linkHeaders: [],
      body: JSON.stringify({ client_id: CLIENT_ID, client_name: name }),
    };
    const info = await parseClientDocument(doc, CLIENT_ID);
    expect(info.name).toBe(`${SCRIPT} gnp.exe x`);
    const rt = await fastRuntime({ discover: async () => info });
    expect(decodePayload(await signedRequest(rt)).client).toEqual({ name: `${SCRIPT} gnp.exe x` });
  });

  it.each([
    ["javascript:", "javascript:alert(document.domain)"],
    ["JavaScript: in mixed case", "JaVaScRiPt:alert(1)"],
    ["data: SVG", "data:image/svg+xml,<svg onload=alert(1)>"],
    ["vbscript:", "vbscript:msgbox(1)"],
  ])("logo_uri with a %s URL is dropped at discovery and never reaches the page", async (_name, logo) => {
    const json = {
      url: CLIENT_ID,
      status: 200,
      contentType: "application/json",
      linkHeaders: [],
      body: JSON.stringify({ client_id: CLIENT_ID, client_name: "App", logo_uri: logo }),
    };
    const html = {
      url: CLIENT_ID,
      status: 200,
      contentType: "text/html",
      linkHeaders: [],
      body: `<div class="h-app"><a class="p-name u-url" href="/">App</a><img class="u-logo" src="${logo.replace(/"/g, "&quot;")}"></div>`,
    };
    for (const doc of [json, html]) {
      const info = await parseClientDocument(doc, CLIENT_ID);
      expect(info.name).toBe("App");
      expect(info.logoUri).toBeUndefined();
      const rt = await fastRuntime({ discover: async () => info });
      const client = decodePayload(await signedRequest(rt)).client;
      expect(client).toMatchObject({ name: "App" });
      expect(client).not.toHaveProperty("logoUri");
    }
  });

  it("logo_uri with a quote cannot end the attribute it is put in: it is kept only as a parsed, percent-encoded URL", async () => {
    const doc = {
      url: CLIENT_ID,
      status: 200,
      contentType: "application/json",
      linkHeaders: [],
      body: JSON.stringify({ client_id: CLIENT_ID, logo_uri: `https://cdn.example/logo.png"onerror="alert(1)'<x>` }),
    };
    const info = await parseClientDocument(doc, CLIENT_ID);
    expect(info.logoUri).toBe("https://cdn.example/logo.png%22onerror=%22alert(1)'%3Cx%3E");
  });
});

describe("script injection: error descriptions that echo input", () => {
  it.each([
    ["response_type", { response_type: SCRIPT }],
    ["code_challenge_method", { code_challenge_method: SCRIPT }],
  ])("%s is echoed only percent-encoded, in the query of the verified redirect_uri", async (_name, overrides) => {
    const response = await authorize(
      await approvedBefore(await fastRuntime({ discover: publishingClient })),
      authorizationParams(overrides),
    );
    expect(response.status).toBe(302);
    const location = response.headers.get("location")!;
    expect(location.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(location).not.toMatch(/[<>"' ]/);
    expect(new URL(location).searchParams.get("error_description")).toContain(SCRIPT);
  });

  it("a duplicated parameter's name is echoed the same way", async () => {
    const params = authorizationParams();
    params.append(SCRIPT, "1");
    params.append(SCRIPT, "2");
    const location = (
      await authorize(await approvedBefore(await fastRuntime({ discover: publishingClient })), params)
    ).headers.get("location")!;
    expect(location).not.toMatch(/[<>"' ]/);
    expect(new URL(location).searchParams.get("error_description")).toBe(
      `The parameter ${SCRIPT} is given more than once.`,
    );
  });

  it("shown on a page with a link back (a redirect URI that is not trusted), it is text, and the link percent-encoded", async () => {
    const html = await pageHtml(
      await authorize(await fastRuntime(), authorizationParams({ response_type: SCRIPT })),
      400,
    );
    expectShownAsText(html, `response_type ${SCRIPT} is not supported`);
    const href = /<a class="button" href="([^"]*)">/.exec(html)![1]!;
    expect(href.startsWith(`${REDIRECT_URI}?`)).toBe(true);
    expect(href).not.toMatch(/[<>"' ]/);
  });

  it("JSON errors that echo input are served as application/json with nosniff, so no browser renders them as a page", async () => {
    const rt = await fastRuntime();
    const response = await tokenEndpoint(
      new Request(`${BASE}/token`, { method: "POST", body: new URLSearchParams({ grant_type: SCRIPT }) }),
      rt,
    );
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(((await response.json()) as { error_description: string }).error_description).toContain(SCRIPT);
  });

  it("a Bearer challenge (WWW-Authenticate) never carries the presented credential", async () => {
    const token = `iat_${"A".repeat(22)}.${"B".repeat(42)}"x`;
    const response = await userinfo(await fastRuntime(), token);
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer realm="indieauth", error="invalid_token"/);
    expect(challenge).not.toContain("AAAA");
  });
});

describe("script injection: the static pages turn data into text only", () => {
  const SITE = new URL("../../../site/", import.meta.url).pathname;

  async function scripts(): Promise<[string, ts.SourceFile][]> {
    const files = (await readdir(join(SITE, "scripts"))).filter((f) => f.endsWith(".ts")).sort();
    return Promise.all(
      files.map(
        async (f) =>
          [
            f,
            ts.createSourceFile(f, await readFile(join(SITE, "scripts", f), "utf8"), ts.ScriptTarget.Latest, true),
          ] as [string, ts.SourceFile],
      ),
    );
  }

  it("no page script uses a sink that parses markup or code (innerHTML, outerHTML, insertAdjacentHTML, document.write, eval, Function, srcdoc, on* attributes)", async () => {
    const sinks: string[] = [];
    for (const [file, source] of await scripts()) {
      const visit = (n: ts.Node): void => {
        if (
          ts.isPropertyAccessExpression(n) &&
          [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "write",
            "writeln",
            "srcdoc",
            "createContextualFragment",
          ].includes(n.name.text)
        )
          sinks.push(`${file}: ${n.getText(source)}`);
        if (ts.isIdentifier(n) && (n.text === "eval" || (n.text === "Function" && ts.isNewExpression(n.parent))))
          sinks.push(`${file}: ${n.parent.getText(source)}`);
        if (
          ts.isCallExpression(n) &&
          n.expression.getText(source).endsWith("setAttribute") &&
          /^["'`]on/i.test(n.arguments[0]?.getText(source) ?? "")
        )
          sinks.push(`${file}: ${n.getText(source)}`);
        ts.forEachChild(n, visit);
      };
      visit(source);
    }
    expect(sinks).toEqual([]);
  });

  it("every URL a page script loads or follows from data (src, href, action) is first held to http(s) (its own address and assets aside)", async () => {
    const unguarded: string[] = [];
    let assignments = 0;
    for (const [file, source] of await scripts()) {
      const visit = (n: ts.Node): void => {
        if (
          ts.isBinaryExpression(n) &&
          n.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
          ts.isPropertyAccessExpression(n.left) &&
          ["src", "href", "action", "formAction"].includes(n.left.name.text)
        ) {
          assignments++;
          // This page's own address, or a path under its own assets folder: same origin by construction.
          if (/^(location\.href|`\$\{ASSETS\}\/[^`]*`)$/.test(n.right.getText(source))) return;
          let guard: ts.Node | undefined = n.parent;
          while (
            guard &&
            !(ts.isIfStatement(guard) && /\/\^https\?:\\\/\\\/\/i\.test\(/.test(guard.expression.getText(source)))
          )
            guard = guard.parent;
          if (!guard) unguarded.push(`${file}: ${n.getText(source)}`);
        }
        ts.forEachChild(n, visit);
      };
      visit(source);
    }
    expect(assignments).toBeGreaterThanOrEqual(2);
    expect(unguarded).toEqual([]);
  });

  it("the templates escape every value they print (outputEscape), and only the rendered page body is printed raw", async () => {
    expect(await readFile(new URL("../../../scripts/build.ts", import.meta.url), "utf8")).toMatch(
      /new Liquid\(\{[^}]*outputEscape: "escape"/,
    );
    const raw: string[] = [];
    for (const file of await readdir(join(SITE, "templates"))) {
      for (const m of (await readFile(join(SITE, "templates", file), "utf8")).matchAll(/\{\{[^}]*\|\s*raw[^}]*\}\}/g))
        raw.push(`${file}: ${m[0]}`);
    }
    expect(raw).toEqual(["layout.liquid: {{ content | raw }}"]);
  });
});

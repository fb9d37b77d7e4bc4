import { describe, expect, it } from "vitest";
import { parseClientDocument } from "../../netlify/lib/clients/client-info.ts";
import { parseLinkHeader } from "../../netlify/lib/clients/link-header.ts";
import type { FetchedDocument } from "../../netlify/lib/clients/safe-fetch.ts";

const CLIENT_ID = "https://app.example.com/client/";

function doc(body: string, contentType: string, extra: Partial<FetchedDocument> = {}): FetchedDocument {
  return { url: CLIENT_ID, status: 200, contentType, linkHeaders: [], body, ...extra };
}

function json(value: unknown, contentType = "application/json"): FetchedDocument {
  return doc(JSON.stringify(value), contentType);
}

function html(body: string, head = ""): FetchedDocument {
  return doc(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, "text/html; charset=utf-8");
}

const bare = { clientId: CLIENT_ID, redirectUris: [], fetched: true };

describe("Client ID Metadata Document (JSON)", () => {
  it("reads a valid document", async () => {
    const info = await parseClientDocument(
      json({
        client_id: CLIENT_ID,
        client_name: "Example App",
        client_uri: "https://app.example.com/",
        logo_uri: "/logo.png",
        redirect_uris: ["https://app.example.com/callback", "/relative-cb", "com.example.app:/cb", "https://app.example.com/callback", 42],
      }),
      CLIENT_ID,
    );
    expect(info).toEqual({
      clientId: CLIENT_ID,
      name: "Example App",
      uri: "https://app.example.com/",
      logoUri: "https://app.example.com/logo.png",
      redirectUris: ["https://app.example.com/callback", "https://app.example.com/relative-cb", "com.example.app:/cb"],
      fetched: true,
    });
  });

  it("accepts application/*+json and compares client_id canonically", async () => {
    const info = await parseClientDocument(json({ client_id: "https://APP.example.com/client/", client_name: "X" }, "application/oauth-client+json"), CLIENT_ID);
    expect(info.name).toBe("X");
  });

  it("reads JSON served with a wrong content type when the body is an object", async () => {
    const info = await parseClientDocument(doc(JSON.stringify({ client_id: CLIENT_ID, client_name: "Plain" }), "text/plain"), CLIENT_ID);
    expect(info.name).toBe("Plain");
  });

  it("ignores a document whose client_id is another app's", async () => {
    const info = await parseClientDocument(
      json({ client_id: "https://evil.example/client/", client_name: "Evil", redirect_uris: ["https://evil.example/cb"] }),
      CLIENT_ID,
    );
    expect(info).toEqual(bare);
  });

  it("ignores a document without client_id", async () => {
    expect(await parseClientDocument(json({ client_name: "Nameless" }), CLIENT_ID)).toEqual(bare);
  });

  it("drops a client_uri that is not a prefix of client_id", async () => {
    for (const clientUri of ["https://evil.example/", "https://app.example.com/other/", "https://app.example.co", "http://app.example.com/"]) {
      const info = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: "A", client_uri: clientUri }), CLIENT_ID);
      expect(info.uri, clientUri).toBeUndefined();
      expect(info.name).toBe("A");
    }
  });

  it("keeps a client_uri without a path (canonicalised to /)", async () => {
    const info = await parseClientDocument(json({ client_id: CLIENT_ID, client_uri: "https://app.example.com" }), CLIENT_ID);
    expect(info.uri).toBe("https://app.example.com/");
  });

  it("drops javascript: and data: logos", async () => {
    for (const logo of ["javascript:alert(1)", "data:image/png;base64,AAAA", " JavaScript:alert(1)"]) {
      const info = await parseClientDocument(json({ client_id: CLIENT_ID, logo_uri: logo }), CLIENT_ID);
      expect(info.logoUri, logo).toBeUndefined();
    }
  });

  it("drops dangerous redirect URIs and ignores a non-array redirect_uris", async () => {
    const info = await parseClientDocument(json({ client_id: CLIENT_ID, redirect_uris: ["javascript:alert(1)", "data:text/html,x", "https://app.example.com/cb#frag"] }), CLIENT_ID);
    expect(info.redirectUris).toEqual([]);
    const other = await parseClientDocument(json({ client_id: CLIENT_ID, redirect_uris: "https://app.example.com/cb" }), CLIENT_ID);
    expect(other.redirectUris).toEqual([]);
  });

  it("cleans and caps the name", async () => {
    const long = "x".repeat(300);
    const info = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: `  Bad\u0000\u0007 \nName\u202e  ` }), CLIENT_ID);
    expect(info.name).toBe("Bad Name");
    const capped = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: long }), CLIENT_ID);
    expect(capped.name).toHaveLength(100);
    const empty = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: "\u0000 \t" }), CLIENT_ID);
    expect(empty.name).toBeUndefined();
    const wrongType = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: { a: 1 } }), CLIENT_ID);
    expect(wrongType.name).toBeUndefined();
  });
});

describe("h-app / h-x-app page", () => {
  it("reads an h-app with a logo string and a relative logo resolved", async () => {
    const info = await parseClientDocument(
      html(`<div class="h-app"><img class="u-logo" src="img/logo.png"><a class="u-url p-name" href="/">Micro App</a></div>`),
      CLIENT_ID,
    );
    expect(info).toEqual({
      clientId: CLIENT_ID,
      name: "Micro App",
      uri: "https://app.example.com/",
      logoUri: "https://app.example.com/client/img/logo.png",
      redirectUris: [],
      fetched: true,
    });
  });

  it("reads an h-x-app with a logo object {value, alt}", async () => {
    const info = await parseClientDocument(
      html(`<div class="h-x-app"><img class="u-logo" src="https://cdn.example.com/logo.svg" alt="Logo of X"><span class="p-name">X App</span></div>`),
      CLIENT_ID,
    );
    expect(info.name).toBe("X App");
    expect(info.logoUri).toBe("https://cdn.example.com/logo.svg");
  });

  it("finds an h-app nested inside another item", async () => {
    const info = await parseClientDocument(
      html(`<div class="h-card"><span class="p-name">Author</span><div class="h-app"><span class="p-name">Nested App</span></div></div>`),
      CLIENT_ID,
    );
    expect(info.name).toBe("Nested App");
  });

  it("drops a javascript: url and logo", async () => {
    const info = await parseClientDocument(
      html(`<div class="h-app"><a class="u-url" href="javascript:alert(1)">Bad</a><data class="u-logo" value="javascript:alert(2)"></data><span class="p-name">Bad</span></div>`),
      CLIENT_ID,
    );
    expect(info.name).toBe("Bad");
    expect(info.uri).toBeUndefined();
    expect(info.logoUri).toBeUndefined();
  });

  it('reads <link rel="redirect_uri">, relative and absolute', async () => {
    const info = await parseClientDocument(
      html(
        `<p>hi</p>`,
        `<link rel="redirect_uri" href="/callback"><link rel="redirect_uri" href="https://other.example.com/cb"><link rel="redirect_uri" href="/callback"><link rel="stylesheet" href="/style.css">`,
      ),
      CLIENT_ID,
    );
    expect(info.redirectUris).toEqual(["https://app.example.com/callback", "https://other.example.com/cb"]);
  });
});

describe("Link headers", () => {
  it("reads redirect_uri from several headers and values, quoted multi-rel, relative targets", async () => {
    const info = await parseClientDocument(
      doc("<!doctype html><html><body><p>page</p></body></html>", "text/html", {
        linkHeaders: [
          `<https://app.example.com/redirect>; rel="redirect_uri"`,
          `</style.css>; rel=stylesheet, <cb2>; rel="authorization_endpoint redirect_uri"; title="a, b; c", <https://x.example/cb3>; rel=redirect_uri`,
          `</no-rel>; title=x`,
        ],
      }),
      CLIENT_ID,
    );
    expect(info.redirectUris).toEqual(["https://app.example.com/redirect", "https://app.example.com/client/cb2", "https://x.example/cb3"]);
  });

  it("combines Link headers with <link> tags without duplicates", async () => {
    const info = await parseClientDocument(
      doc(`<!doctype html><html><head><link rel="redirect_uri" href="/redirect"></head><body><p>x</p></body></html>`, "text/html", {
        linkHeaders: [`<https://app.example.com/redirect>; rel="redirect_uri"`],
      }),
      CLIENT_ID,
    );
    expect(info.redirectUris).toEqual(["https://app.example.com/redirect"]);
  });

  it("parses RFC 8288 values carefully", () => {
    const links = parseLinkHeader(`<https://a.example/x,y>; rel="next prev"; title="q\\"uote; ,", garbage, <b>;REL=up;rel=ignored,<c>`);
    expect(links.map((l) => l.target)).toEqual(["https://a.example/x,y", "b", "c"]);
    expect(links[0]!.params.get("rel")).toBe("next prev");
    expect(links[0]!.params.get("title")).toBe('q"uote; ,');
    expect(links[1]!.params.get("rel")).toBe("up");
    expect(parseLinkHeader(`<a>; rel="unterminated`)).toEqual([]);
    expect(parseLinkHeader(`<unclosed; rel=x`)).toEqual([]);
    expect(parseLinkHeader("")).toEqual([]);
  });
});

describe("garbage", () => {
  it.each([
    ["", "text/html"],
    ["{not json", "application/json"],
    ["[1,2,3]", "application/json"],
    ["null", "application/json"],
    ["\u0000\u0001<<<>>>", "text/html"],
    [`<html><head><base href="/relative/"></head><body><div class="h-app"><span class="p-name">x</span></div></body></html>`, "text/html"],
    ["\u0089PNG binary", "image/png"],
  ])("returns bare info for %j (%s)", async (body, contentType) => {
    expect(await parseClientDocument(doc(body, contentType), CLIENT_ID)).toEqual(bare);
  });
});

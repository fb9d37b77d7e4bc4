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

/** What a refused metadata document gives: nothing of the app's, unfetched, and why. */
async function refusal(document: FetchedDocument): Promise<string> {
  const info = await parseClientDocument(document, CLIENT_ID);
  // Refused for how it authenticates, or for naming another client_id: also marked so (the
  // sign-in stops, see authorization-request.ts).
  const { authenticationRefused: _marked, identityRefused: _named, ...rest } = info;
  expect(rest).toEqual({ clientId: CLIENT_ID, redirectUris: [], fetched: false, refused: expect.any(String) });
  return info.refused!;
}

/** A document that would be accepted, with these properties added. */
function valid(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: CLIENT_ID,
    client_name: "Example App",
    redirect_uris: ["https://elsewhere.example/callback"],
    ...extra,
  };
}

describe("Client ID Metadata Document (JSON)", () => {
  it("reads a valid document", async () => {
    const info = await parseClientDocument(
      json({
        client_id: CLIENT_ID,
        client_name: "Example App",
        client_uri: "https://app.example.com/",
        logo_uri: "/logo.png",
        redirect_uris: [
          "https://app.example.com/callback",
          "/relative-cb",
          "com.example.app:/cb",
          "https://app.example.com/callback",
          42,
        ],
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
      metadataDocument: true,
    });
  });

  it("accepts application/*+json", async () => {
    const info = await parseClientDocument(
      json(valid({ client_name: "X" }), "application/oauth-client+json"),
      CLIENT_ID,
    );
    expect(info.name).toBe("X");
  });

  it("compares client_id by simple string comparison (CIMD draft 3), not canonically", async () => {
    for (const spelled of [
      "https://APP.example.com/client/",
      "https://app.example.com:443/client/",
      "https://app.example.com/client",
    ]) {
      expect(await refusal(json(valid({ client_id: spelled })))).toContain("is not exactly its own URL");
    }
  });

  it("reads JSON served with a wrong content type when the body is an object", async () => {
    const info = await parseClientDocument(
      doc(JSON.stringify({ client_id: CLIENT_ID, client_name: "Plain" }), "text/plain"),
      CLIENT_ID,
    );
    expect(info.name).toBe("Plain");
  });

  it("refuses a document whose client_id is another app's", async () => {
    const reason = await refusal(
      json({
        client_id: "https://evil.example/client/",
        client_name: "Evil",
        redirect_uris: ["https://evil.example/cb"],
      }),
    );
    expect(reason).toContain("is not exactly its own URL");
  });

  it("refuses a document without client_id", async () => {
    expect(await refusal(json({ client_name: "Nameless" }))).toBe("the document has no client_id");
  });

  it("marks a document that names another client_id, or none, as one that stops the sign-in; no other refusal", async () => {
    for (const named of [{ client_id: "https://evil.example/client/" }, {}]) {
      expect(
        await parseClientDocument(json({ ...named, client_name: "X" }), CLIENT_ID),
        JSON.stringify(named),
      ).toMatchObject({ identityRefused: true });
    }
    expect(await parseClientDocument(json(valid({ client_secret: "s" })), CLIENT_ID)).not.toHaveProperty(
      "identityRefused",
    );
  });

  it("drops a client_uri that is not a prefix of client_id", async () => {
    for (const clientUri of [
      "https://evil.example/",
      "https://app.example.com/other/",
      "https://app.example.co",
      "http://app.example.com/",
    ]) {
      const info = await parseClientDocument(
        json({ client_id: CLIENT_ID, client_name: "A", client_uri: clientUri }),
        CLIENT_ID,
      );
      expect(info.uri, clientUri).toBeUndefined();
      expect(info.name).toBe("A");
    }
  });

  it("keeps a client_uri without a path (canonicalised to /)", async () => {
    const info = await parseClientDocument(
      json({ client_id: CLIENT_ID, client_uri: "https://app.example.com" }),
      CLIENT_ID,
    );
    expect(info.uri).toBe("https://app.example.com/");
  });

  it("drops javascript: and data: logos", async () => {
    for (const logo of ["javascript:alert(1)", "data:image/png;base64,AAAA", " JavaScript:alert(1)"]) {
      const info = await parseClientDocument(json({ client_id: CLIENT_ID, logo_uri: logo }), CLIENT_ID);
      expect(info.logoUri, logo).toBeUndefined();
    }
  });

  it("drops dangerous redirect URIs and ignores a non-array redirect_uris", async () => {
    const info = await parseClientDocument(
      json({
        client_id: CLIENT_ID,
        redirect_uris: ["javascript:alert(1)", "data:text/html,x", "https://app.example.com/cb#frag"],
      }),
      CLIENT_ID,
    );
    expect(info.redirectUris).toEqual([]);
    const other = await parseClientDocument(
      json({ client_id: CLIENT_ID, redirect_uris: "https://app.example.com/cb" }),
      CLIENT_ID,
    );
    expect(other.redirectUris).toEqual([]);
  });

  it("cleans and caps the name", async () => {
    const long = "x".repeat(300);
    const info = await parseClientDocument(
      json({ client_id: CLIENT_ID, client_name: `  Bad\u0000\u0007 \nName\u202e  ` }),
      CLIENT_ID,
    );
    expect(info.name).toBe("Bad Name");
    const capped = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: long }), CLIENT_ID);
    expect(capped.name).toHaveLength(100);
    const empty = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: "\u0000 \t" }), CLIENT_ID);
    expect(empty.name).toBeUndefined();
    const wrongType = await parseClientDocument(json({ client_id: CLIENT_ID, client_name: { a: 1 } }), CLIENT_ID);
    expect(wrongType.name).toBeUndefined();
  });
});

describe("Client ID Metadata Document: the draft's refusal rules (draft-ietf-oauth-client-id-metadata-document)", () => {
  it("reads a document only from an https client_id", async () => {
    const clientId = "http://app.example.com/client/";
    const info = await parseClientDocument(
      {
        url: clientId,
        status: 200,
        contentType: "application/json",
        linkHeaders: [],
        body: JSON.stringify(valid({ client_id: clientId })),
      },
      clientId,
    );
    expect(info).toEqual({
      clientId,
      redirectUris: [],
      fetched: false,
      refused: "a client metadata document is read only from an https client_id",
    });
  });

  it("counts a document only from a 200 response", async () => {
    for (const status of [201, 203, 206]) {
      expect(await refusal(doc(JSON.stringify(valid()), "application/json", { status }))).toBe(
        `the document was served with status ${status}, not 200`,
      );
    }
  });

  it("counts a document only when no redirect was followed, even on the client's own origin", async () => {
    const body = JSON.stringify(valid());
    expect(await refusal(doc(body, "application/json", { redirected: true }))).toContain("redirect");
    expect(
      await refusal(doc(body, "application/json", { url: "https://app.example.com/client/metadata.json" })),
    ).toContain("redirect");
  });

  it("refuses a document over 5 KB, and reads one of exactly 5 KB", async () => {
    const padded = (bytes: number): string => {
      const base = JSON.stringify(valid({ padding: "" }));
      return JSON.stringify(valid({ padding: "x".repeat(bytes - base.length) }));
    };
    expect(padded(5120)).toHaveLength(5120);
    expect((await parseClientDocument(doc(padded(5120), "application/json"), CLIENT_ID)).name).toBe("Example App");
    expect(await refusal(doc(padded(5121), "application/json"))).toBe("the document is larger than 5 KB");
    // Counted in bytes, not characters.
    const wide = JSON.stringify(valid({ client_name: "é".repeat(2600) }));
    expect(wide.length).toBeLessThan(5120);
    expect(await refusal(doc(wide, "application/json"))).toBe("the document is larger than 5 KB");
  });

  it("refuses a document with client_secret or client_secret_expires_at", async () => {
    expect(await refusal(json(valid({ client_secret: "s3cret" })))).toContain("client_secret");
    expect(await refusal(json(valid({ client_secret_expires_at: 0 })))).toContain("client_secret_expires_at");
  });

  it("refuses a symmetric token_endpoint_auth_method, and any but none and private_key_jwt", async () => {
    for (const method of ["client_secret_basic", "client_secret_post", "client_secret_jwt"]) {
      expect(await refusal(json(valid({ token_endpoint_auth_method: method }))), method).toContain(
        "needs a shared secret",
      );
    }
    expect(await refusal(json(valid({ token_endpoint_auth_method: "tls_client_auth" })))).toContain(
      "is not one this server accepts (none or private_key_jwt)",
    );
    expect(await refusal(json(valid({ token_endpoint_auth_method: 42 })))).toContain("is not one name");
    expect(await refusal(json(valid({ token_endpoint_auth_method: "private_key_jwt" })))).toContain(
      "publishes no keys",
    );
    expect(
      (await parseClientDocument(json(valid({ token_endpoint_auth_method: "none" })), CLIENT_ID)).redirectUris,
    ).toEqual(["https://elsewhere.example/callback"]);
  });

  it("reads private_key_jwt with its jwks_uri (ChatGPT's form: the plural member agreeing), and refuses what is ambiguous", async () => {
    const declared = {
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
      token_endpoint_auth_signing_alg: "RS256",
      jwks_uri: "https://app.example/jwks.json",
    };
    const info = await parseClientDocument(json(valid(declared)), CLIENT_ID);
    expect(info.refused).toBeUndefined();
    expect(info.authentication).toEqual({
      method: "private_key_jwt",
      keys: { jwksUri: "https://app.example/jwks.json" },
      alg: "RS256",
    });
    expect(await refusal(json(valid({ ...declared, token_endpoint_auth_methods_supported: ["none"] })))).toContain(
      "does not include its own token_endpoint_auth_method",
    );
    expect(await refusal(json(valid({ ...declared, jwks_uri: "http://app.example/jwks.json" })))).toContain(
      "not an https URL",
    );
    expect(
      (await parseClientDocument(json(valid({ token_endpoint_auth_method: "none" })), CLIENT_ID)).authentication,
    ).toBeUndefined();
  });

  it("refuses private key material in jwks, and reads public keys", async () => {
    const publicKey = {
      kty: "EC",
      crv: "P-256",
      x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
    };
    expect(
      await refusal(
        json(valid({ jwks: { keys: [{ ...publicKey, d: "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI" }] } })),
      ),
    ).toBe("the document publishes private key material");
    expect(await refusal(json(valid({ jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } })))).toBe(
      "the document publishes private key material",
    );
    expect((await parseClientDocument(json(valid({ jwks: { keys: [publicKey] } })), CLIENT_ID)).name).toBe(
      "Example App",
    );
  });

  it("keeps IndieAuth's older rules for an HTML page: any 2xx, and a redirect on the client's origin", async () => {
    const page = `<!doctype html><div class="h-app"><a class="p-name u-url" href="/">Older App</a></div>`;
    const info = await parseClientDocument(
      doc(page, "text/html", { status: 203, redirected: true, url: "https://app.example.com/client/home" }),
      CLIENT_ID,
    );
    expect(info.name).toBe("Older App");
    expect(info.fetched).toBe(true);
  });
});

describe("h-app / h-x-app page", () => {
  it("reads an h-app with a logo string and a relative logo resolved", async () => {
    const info = await parseClientDocument(
      html(
        `<div class="h-app"><img class="u-logo" src="img/logo.png"><a class="u-url p-name" href="/">Micro App</a></div>`,
      ),
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
      html(
        `<div class="h-x-app"><img class="u-logo" src="https://cdn.example.com/logo.svg" alt="Logo of X"><span class="p-name">X App</span></div>`,
      ),
      CLIENT_ID,
    );
    expect(info.name).toBe("X App");
    expect(info.logoUri).toBe("https://cdn.example.com/logo.svg");
  });

  it("finds an h-app nested inside another item", async () => {
    const info = await parseClientDocument(
      html(
        `<div class="h-card"><span class="p-name">Author</span><div class="h-app"><span class="p-name">Nested App</span></div></div>`,
      ),
      CLIENT_ID,
    );
    expect(info.name).toBe("Nested App");
  });

  it("drops a javascript: url and logo", async () => {
    const info = await parseClientDocument(
      html(
        `<div class="h-app"><a class="u-url" href="javascript:alert(1)">Bad</a><data class="u-logo" value="javascript:alert(2)"></data><span class="p-name">Bad</span></div>`,
      ),
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
    expect(info.redirectUris).toEqual([
      "https://app.example.com/redirect",
      "https://app.example.com/client/cb2",
      "https://x.example/cb3",
    ]);
  });

  it("combines Link headers with <link> tags without duplicates", async () => {
    const info = await parseClientDocument(
      doc(
        `<!doctype html><html><head><link rel="redirect_uri" href="/redirect"></head><body><p>x</p></body></html>`,
        "text/html",
        {
          linkHeaders: [`<https://app.example.com/redirect>; rel="redirect_uri"`],
        },
      ),
      CLIENT_ID,
    );
    expect(info.redirectUris).toEqual(["https://app.example.com/redirect"]);
  });

  it("parses RFC 8288 values carefully", () => {
    const links = parseLinkHeader(
      `<https://a.example/x,y>; rel="next prev"; title="q\\"uote; ,", garbage, <b>;REL=up;rel=ignored,<c>`,
    );
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
    ["{not json", "the document is not valid JSON"],
    ["[1,2,3]", "the document is not a JSON object"],
    ["null", "the document is not a JSON object"],
  ])("refuses %j served as JSON", async (body, reason) => {
    expect(await refusal(doc(body, "application/json"))).toBe(reason);
  });

  it.each([
    ["", "text/html"],
    ["\u0000\u0001<<<>>>", "text/html"],
    [
      `<html><head><base href="/relative/"></head><body><div class="h-app"><span class="p-name">x</span></div></body></html>`,
      "text/html",
    ],
    ["\u0089PNG binary", "image/png"],
  ])("returns bare info for %j (%s)", async (body, contentType) => {
    expect(await parseClientDocument(doc(body, contentType), CLIENT_ID)).toEqual(bare);
  });
});

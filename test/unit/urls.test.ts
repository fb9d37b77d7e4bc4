import { describe, expect, it } from "vitest";
import {
  canonicalUrl,
  isUnderClientPath,
  parseClientId,
  parseProfileUrl,
  parseRedirectUri,
  shownUrl,
} from "../../netlify/lib/core/urls.ts";

describe("profile URLs (spec 3.2)", () => {
  it.each([
    "https://example.com/",
    "https://example.com/username",
    "https://example.com/users?id=100",
    "http://example.com/",
  ])("accepts %s", (url) => expect(parseProfileUrl(url).ok).toBe(true));

  it.each([
    ["example.com", "missing scheme"],
    ["mailto:user@example.com", "invalid scheme"],
    ["https://example.com/foo/../bar", "double-dot segment"],
    ["https://example.com/foo/./bar", "single-dot segment"],
    ["https://example.com/#me", "fragment"],
    ["https://user:pass@example.com/", "username and password"],
    ["https://example.com:8443/", "port"],
    ["https://172.28.92.51/", "IPv4 host"],
    ["https://[::1]/", "IPv6 host"],
    ["https://localhost/", "localhost outside development"],
  ])("refuses %s (%s)", (url) => expect(parseProfileUrl(url).ok).toBe(false));

  it("accepts localhost with a port only in development", () => {
    expect(parseProfileUrl("http://localhost:8888/").ok).toBe(false);
    expect(parseProfileUrl("http://localhost:8888/", { allowLocalhost: true }).ok).toBe(true);
  });

  it("adds the / path and lowercases the host (3.4)", () => {
    const checked = parseProfileUrl("https://Example.COM");
    expect(checked.ok && checked.url.href).toBe("https://example.com/");
    expect(canonicalUrl("https://APP.example.com")).toBe("https://app.example.com/");
  });
});

describe("client identifiers (spec 3.3)", () => {
  it.each([
    "https://app.example.com/",
    "https://app.example.com/path?query=1",
    "https://app.example.com:8443/",
    "http://127.0.0.1:3000/",
    "http://[::1]:3000/",
    "http://localhost:3000/",
  ])("accepts %s", (url) => expect(parseClientId(url).ok).toBe(true));

  it.each([
    "app.example.com",
    "ftp://app.example.com/",
    "https://app.example.com/a/../b",
    "https://app.example.com/./",
    "https://app.example.com/#frag",
    "https://user:pass@app.example.com/",
    "https://10.0.0.1/",
    "https://192.168.1.5:8080/",
    "https://[2001:db8::1]/",
    "https://app.example.com\\@evil.example/",
    "",
  ])("refuses %j", (url) => expect(parseClientId(url).ok).toBe(false));
});

describe("redirect URIs", () => {
  it("accepts https URLs with a query, and custom schemes for native apps", () => {
    expect(parseRedirectUri("https://app.example.com/cb?x=1").ok).toBe(true);
    expect(parseRedirectUri("com.example.app:/callback").ok).toBe(true);
  });
  it.each([
    "javascript:alert(1)",
    "data:text/html,hi",
    "https://app.example.com/cb#x",
    "https://u:p@app.example.com/",
    "relative/cb",
  ])("refuses %s", (url) => expect(parseRedirectUri(url).ok).toBe(false));
});

describe("a redirect URI under the client_id's path (shown on the consent page when not)", () => {
  it.each([
    ["https://app.example.com/", "https://app.example.com/callback?x=1"],
    ["http://127.0.0.1:3000/~alice/app/", "http://127.0.0.1:3000/~alice/app/callback"],
    ["https://app.example.com/app", "https://app.example.com/app/callback"],
    ["https://app.example.com/app", "https://app.example.com/app"],
    ["https://APP.example.com/", "https://app.example.com:443/cb"],
  ])("%s holds %s", (clientId, redirectUri) => expect(isUnderClientPath(clientId, redirectUri)).toBe(true));

  it.each([
    ["http://127.0.0.1:3000/~alice/app/", "http://127.0.0.1:3000/~mallory/collect"],
    ["http://127.0.0.1:3000/~alice/app/", "http://127.0.0.1:3000/~alice/app/../../~mallory/collect"],
    ["http://127.0.0.1:3000/~alice/app/", "http://127.0.0.1:3000/~alice/app/%2e%2e/%2e%2e/~mallory/collect"],
    ["http://127.0.0.1:3000/~alice/app/", "http://127.0.0.1:3000/~alice/app%2F..%2F..%2F~mallory"],
    ["https://app.example.com/app", "https://app.example.com/application/cb"],
    ["https://app.example.com/", "https://evil.example/callback"],
    ["https://app.example.com/", "http://app.example.com/callback"],
    ["https://app.example.com/", "com.example.app:/callback"],
    ["https://app.example.com/", "not a url"],
  ])("%s does not hold %s", (clientId, redirectUri) => expect(isUnderClientPath(clientId, redirectUri)).toBe(false));
});

describe("URLs shown to a person", () => {
  it("are their parsed href: printable ASCII, punycode hosts, at most 80 characters", () => {
    expect(shownUrl("https://someone.example/\u202e\u2705 VERIFIED\nAPP")).toBe(
      "https://someone.example/%E2%80%AE%E2%9C%85%20VERIFIEDAPP",
    );
    expect(shownUrl("https://b\u00fccher.example/")).toBe("https://xn--bcher-kva.example/");
    expect(shownUrl(`https://x.example/${"a".repeat(200)}`)).toHaveLength(80);
    expect(shownUrl(`https://x.example/${"a".repeat(200)}`)!.endsWith("\u2026")).toBe(true);
  });
  it.each(["VERIFIED APP, press Approve", "javascript:alert(1)", "data:text/html,x", ""])("are nothing for %j", (raw) =>
    expect(shownUrl(raw)).toBeUndefined(),
  );
});

import { describe, expect, it } from "vitest";
import { canonicalUrl, parseClientId, parseProfileUrl, parseRedirectUri } from "../../netlify/lib/protocol/urls.ts";

describe("profile URLs (spec 3.2)", () => {
  it.each(["https://example.com/", "https://example.com/username", "https://example.com/users?id=100", "http://example.com/"])(
    "accepts %s",
    (url) => expect(parseProfileUrl(url).ok).toBe(true),
  );

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
  it.each(["javascript:alert(1)", "data:text/html,hi", "https://app.example.com/cb#x", "https://u:p@app.example.com/", "relative/cb"])(
    "refuses %s",
    (url) => expect(parseRedirectUri(url).ok).toBe(false),
  );
});

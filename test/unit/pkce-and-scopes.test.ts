import { describe, expect, it } from "vitest";
import { isPkceValue, s256, verifierMatches } from "../../netlify/lib/protocol/pkce.ts";
import { grantedScopes, parseScope } from "../../netlify/lib/protocol/scopes.ts";

describe("PKCE", () => {
  // RFC 7636 appendix B
  const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

  it("computes S256 as in RFC 7636", () => expect(s256(verifier)).toBe(challenge));
  it("matches the right verifier only", () => {
    expect(verifierMatches(verifier, challenge)).toBe(true);
    expect(verifierMatches(`${verifier.slice(0, -1)}B`, challenge)).toBe(false);
    expect(verifierMatches("short", s256("short"))).toBe(false);
  });
  it("accepts 43 to 128 unreserved characters as a challenge", () => {
    expect(isPkceValue("a".repeat(42))).toBe(false);
    expect(isPkceValue("a".repeat(43))).toBe(true);
    expect(isPkceValue("a".repeat(128))).toBe(true);
    expect(isPkceValue("a".repeat(129))).toBe(false);
    expect(isPkceValue(`${"a".repeat(42)}+`)).toBe(false);
  });
});

describe("scopes", () => {
  it("splits on spaces and removes duplicates", () => {
    expect(parseScope("profile create  create update")).toEqual({ ok: true, scopes: ["profile", "create", "update"] });
  });
  it("treats a missing scope as none", () => expect(parseScope(null)).toEqual({ ok: true, scopes: [] }));
  it("drops email without profile", () => {
    expect(parseScope("email create")).toEqual({ ok: true, scopes: ["create"] });
    expect(parseScope("profile email")).toEqual({ ok: true, scopes: ["profile", "email"] });
  });
  it("refuses malformed scope tokens", () => {
    expect(parseScope('create "quoted"').ok).toBe(false);
    expect(parseScope("create\\x").ok).toBe(false);
    expect(parseScope("caf\u00e9").ok).toBe(false);
  });
  it("grants only ticked scopes that were requested", () => {
    expect(grantedScopes(["profile", "create", "update"], ["update", "delete", "profile"])).toEqual([
      "profile",
      "update",
    ]);
    expect(grantedScopes(["profile", "email"], ["email"])).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { grantIdOf, newGrantId, newGrantToken, tokenKindOf } from "../../netlify/lib/protocol/grant-tokens.ts";
import { derivedSecret } from "../../netlify/lib/crypto/secrets.ts";

describe("grant tokens", () => {
  const id = newGrantId();

  it("carry their kind and their grant", () => {
    const access = newGrantToken("access", id);
    const refresh = newGrantToken("refresh", id);
    expect(access).toMatch(/^iat_[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect(grantIdOf(access, "access")).toBe(id);
    expect(grantIdOf(refresh, "refresh")).toBe(id);
    expect(tokenKindOf(access)).toBe("access");
    expect(tokenKindOf(refresh)).toBe("refresh");
  });

  it("are never accepted as another kind", () => {
    expect(grantIdOf(newGrantToken("access", id), "refresh")).toBeNull();
    expect(grantIdOf(newGrantToken("refresh", id), "access")).toBeNull();
    expect(tokenKindOf(derivedSecret("code", new Uint8Array(32), id))).toBeNull();
  });

  it("refuse truncated and padded values", () => {
    const access = newGrantToken("access", id);
    expect(grantIdOf(access.slice(0, -1), "access")).toBeNull();
    expect(grantIdOf(`${access}A`, "access")).toBeNull();
    expect(grantIdOf(` ${access}`, "access")).toBeNull();
  });

  it("are different every time", () => {
    expect(newGrantToken("access", id)).not.toBe(newGrantToken("access", id));
  });
});

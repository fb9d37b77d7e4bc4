// netlify.toml is part of the product: it routes every endpoint and sets the page headers.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { BUILT_FUNCTIONS } from "../../scripts/build-functions.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Toml {
  build: { command: string };
  functions: { directory: string };
  redirects: { from: string; to: string; status: number; force: boolean }[];
  headers: { for: string; values: Record<string, string> }[];
}

const toml = parse(readFileSync(new URL("../../netlify.toml", import.meta.url), "utf8")) as unknown as Toml;

describe("netlify.toml", () => {
  it("deploys the functions that the build command prebuilds, not their sources", () => {
    expect(toml.build.command).toBe("npm run build");
    expect(join(root, toml.functions.directory)).toBe(BUILT_FUNCTIONS);
  });

  it.each([
    ["/.well-known/oauth-authorization-server", "metadata"],
    ["/auth", "auth"],
    ["/auth/logo", "auth"],
    ["/auth/approve", "approve"],
    ["/auth/approve/check", "approve"],
    ["/token", "token"],
    ["/introspect", "introspect"],
    ["/revoke", "revoke"],
    ["/register", "register"],
    ["/register/*", "register"],
    ["/userinfo", "userinfo"],
    ["/indieauth/self-test/me", "self-test"],
    ["/indieauth/api/account", "account"],
    ["/indieauth/api/account/*", "account"],
    ["/indieauth/api/passkeys/*", "passkeys"],
  ])("maps %s onto the %s function, ahead of any static file", (from, fn) => {
    expect(toml.redirects).toContainEqual({ from, to: `/.netlify/functions/${fn}`, status: 200, force: true });
  });

  it("gives the sign-in page a strict CSP, no framing, no referrer and no caching", () => {
    const rule = toml.headers.find((h) => h.for === "/indieauth/sign-in/*");
    expect(rule?.values).toMatchObject({ "X-Frame-Options": "DENY", "Cache-Control": "no-store" });
    const csp = rule!.values["Content-Security-Policy"]!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    // Images from this origin only: an app's logo is served from here (GET /auth/logo).
    expect(csp).toContain("img-src 'self';");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(toml.headers.find((h) => h.for === "/*")?.values["Referrer-Policy"]).toBe("no-referrer");
  });

  it("gives the owner console the same protection, and /account leads to it", () => {
    const rule = toml.headers.find((h) => h.for === "/indieauth/account/*");
    expect(rule?.values).toMatchObject({ "X-Frame-Options": "DENY", "Cache-Control": "no-store" });
    const csp = rule!.values["Content-Security-Policy"]!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(toml.redirects).toContainEqual({ from: "/account", to: "/indieauth/account/", status: 301 });
  });
});

import { describe, expect, it } from "vitest";
import { loadConfig } from "../../netlify/lib/platform/config.ts";
import { testEnv } from "../helpers/env.ts";

function problemsOf(result: ReturnType<typeof loadConfig>): string[] {
  return result.ok ? [] : result.problems.map((p) => p.variable);
}

describe("configuration", () => {
  it("reads a complete environment", async () => {
    const result = loadConfig(await testEnv({ ME: "https://Jane.Example" }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.me).toBe("https://jane.example/");
    expect(result.config.issuer).toBe("https://auth.jane.example/");
    expect(result.config.profile).toEqual({
      name: "Jane Doe",
      url: "https://jane.example/",
      photo: "https://jane.example/photo.jpg",
      email: "jane@jane.example",
    });
  });

  it("names each missing variable", () => {
    expect(problemsOf(loadConfig({}))).toEqual(["ME", "SECRET", "PASSWORD_HASH", "BASE_URL"]);
  });

  it("names malformed variables", async () => {
    const result = loadConfig(
      await testEnv({
        ME: "https://jane.example/#me",
        SECRET: "short",
        PASSWORD_HASH: "hunter2",
        BASE_URL: "https://auth.jane.example/path",
      }),
    );
    expect(problemsOf(result)).toEqual(["ME", "SECRET", "PASSWORD_HASH", "BASE_URL"]);
  });

  it("falls back to Netlify's URL for the base URL", async () => {
    const result = loadConfig(await testEnv({ BASE_URL: undefined, URL: "https://example.netlify.app" }));
    expect(result.ok && result.config.issuer).toBe("https://example.netlify.app/");
  });

  it("accepts localhost, ports and http only in the development context", async () => {
    const local = { ME: "http://localhost:8888/", BASE_URL: "http://localhost:8888" };
    expect(problemsOf(loadConfig(await testEnv(local)))).toEqual(["ME", "BASE_URL"]);
    expect(loadConfig(await testEnv({ ...local, CONTEXT: "dev" })).ok).toBe(true);
  });

  it("accepts a bcrypt PASSWORD_SECRET instead of PASSWORD_HASH", async () => {
    const bcrypt = await import("bcryptjs");
    const result = loadConfig(await testEnv({ PASSWORD_HASH: undefined, PASSWORD_SECRET: await bcrypt.hash("pw", 4) }));
    expect(result.ok && result.config.password.kind).toBe("bcrypt");
  });

  it("derives keys from SECRET instead of using it raw", async () => {
    const result = loadConfig(await testEnv());
    if (!result.ok) throw new Error("config");
    expect(Buffer.from(result.config.keys.requestObject).toString()).not.toContain("test-secret");
    expect(result.config.keys.requestObject).toHaveLength(32);
  });

  it("reads token lifetimes as durations, with 30 and 90 days by default", async () => {
    const defaults = loadConfig(await testEnv());
    expect(defaults.ok && [defaults.config.accessTokenTtlMs, defaults.config.refreshTokenTtlMs]).toEqual([
      30 * 86_400_000,
      90 * 86_400_000,
    ]);
    const custom = loadConfig(await testEnv({ ACCESS_TOKEN_TTL: "12h", REFRESH_TOKEN_TTL: "3600" }));
    expect(custom.ok && [custom.config.accessTokenTtlMs, custom.config.refreshTokenTtlMs]).toEqual([
      12 * 3_600_000,
      3_600_000,
    ]);
    expect(problemsOf(loadConfig(await testEnv({ ACCESS_TOKEN_TTL: "soon", REFRESH_TOKEN_TTL: "5" })))).toEqual([
      "ACCESS_TOKEN_TTL",
      "REFRESH_TOKEN_TTL",
    ]);
  });

  it("accepts an INTROSPECTION_TOKEN of at least 32 characters", async () => {
    const good = loadConfig(await testEnv({ INTROSPECTION_TOKEN: "r".repeat(32) }));
    expect(good.ok && good.config.introspectionToken).toBe("r".repeat(32));
    expect(problemsOf(loadConfig(await testEnv({ INTROSPECTION_TOKEN: "short" })))).toEqual(["INTROSPECTION_TOKEN"]);
  });

  it("reads PASSWORD_LOGIN as on or off, on by default, and names a bad value", async () => {
    const defaults = loadConfig(await testEnv());
    expect(defaults.ok && defaults.config.passwordLogin).toBe(true);
    const off = loadConfig(await testEnv({ PASSWORD_LOGIN: "OFF" }));
    expect(off.ok && off.config.passwordLogin).toBe(false);
    expect(problemsOf(loadConfig(await testEnv({ PASSWORD_LOGIN: "sometimes" })))).toEqual(["PASSWORD_LOGIN"]);
  });

  it("derives a different key for each signed object", async () => {
    const result = loadConfig(await testEnv());
    if (!result.ok) throw new Error("config");
    const { requestObject, session, webauthn } = result.config.keys;
    const hex = [requestObject, session, webauthn].map((k) => Buffer.from(k).toString("hex"));
    expect(new Set(hex).size).toBe(3);
  });
});

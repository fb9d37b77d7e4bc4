import { describe, expect, it } from "vitest";
import type { FetchedDocument } from "../../netlify/lib/clients/safe-fetch.ts";
import { FetchRefused } from "../../netlify/lib/clients/safe-fetch.ts";
import { checkProfileLinks } from "../../netlify/lib/owner/profile-links.ts";
import { loadConfig } from "../../netlify/lib/platform/config.ts";
import { testEnv } from "../helpers/env.ts";

async function config() {
  const result = loadConfig(await testEnv());
  if (!result.ok) throw new Error("config");
  return result.config;
}

const page = (body: string, linkHeaders: string[] = []): FetchedDocument => ({
  url: "https://jane.example/",
  status: 200,
  contentType: "text/html; charset=utf-8",
  linkHeaders,
  body,
});

describe("checking the owner's page", () => {
  it("finds the three tags, resolving relative ones", async () => {
    const html = `<html><head><link rel="indieauth-metadata" href="https://auth.jane.example/.well-known/oauth-authorization-server">
      <link rel="authorization_endpoint" href="https://auth.jane.example/auth"><link rel="token_endpoint" href="https://auth.jane.example/token"></head></html>`;
    const report = await checkProfileLinks(await config(), async () => page(html));
    expect(report.fetched).toBe(true);
    expect(report.checks.map((c) => c.ok)).toEqual([true, true, true]);
  });

  it("lets a Link header win over a <link> element, as clients read it", async () => {
    const html = `<link rel="token_endpoint" href="https://auth.jane.example/token">`;
    const report = await checkProfileLinks(await config(), async () =>
      page(html, ['<https://old.example/token>; rel="token_endpoint"']),
    );
    const token = report.checks.find((c) => c.rel === "token_endpoint")!;
    expect(token).toMatchObject({
      ok: false,
      found: "https://old.example/token",
      tag: '<link rel="token_endpoint" href="https://auth.jane.example/token">',
    });
  });

  it("says when the page cannot be fetched, and still gives the tags", async () => {
    const report = await checkProfileLinks(await config(), async () => {
      throw new FetchRefused("jane.example resolves to 10.0.0.1, which is not allowed");
    });
    expect(report.fetched).toBe(false);
    // The report is public: it names no address (the function's log has the whole reason).
    expect(report.error).toBe("it could not be reached");
    expect(report.checks.every((c) => !c.ok && c.tag.startsWith("<link rel="))).toBe(true);
  });
});

describe("pages with nothing in <body>", () => {
  it("still yield their <link> rels to client discovery", async () => {
    const { parseClientDocument } = await import("../../netlify/lib/clients/client-info.ts");
    const info = await parseClientDocument(
      page(`<!doctype html><html><head><link rel="redirect_uri" href="/cb"></head><body></body></html>`),
      "https://jane.example/",
    );
    expect(info.redirectUris).toEqual(["https://jane.example/cb"]);
  });
});

// Strict-Transport-Security (RFC 6797) on every answer of an https deployment, and none in
// local development over http.
import { NO_SUBSCRIBERS } from "../../netlify/lib/platform/events.ts";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { parse } from "smol-toml";
import { endpoint, route } from "../../netlify/lib/http/endpoint.ts";
import { InvalidRequest } from "../../netlify/lib/errors.ts";
import { BASE } from "../helpers/requests.ts";
import { testRuntime } from "../helpers/runtime.ts";

const probe = endpoint({
  events: NO_SUBSCRIBERS,
  cors: true,
  GET: route({
    caller: "anyone",
    answers: "json",
    body: "none",
    redirects: "none",
    run: async () => new Response("{}", { headers: { "Content-Type": "application/json" } }),
  }),
  POST: route({
    caller: "anyone",
    answers: "page",
    body: "none",
    redirects: "none",
    run: async () => Promise.reject(new InvalidRequest("refused")),
  }),
});

const requests = (): [string, Request][] => [
  ["a JSON answer", new Request(`${BASE}/probe`)],
  ["a refusal on a page", new Request(`${BASE}/probe`, { method: "POST" })],
  ["a wrong method", new Request(`${BASE}/probe`, { method: "PUT" })],
  ["a CORS preflight", new Request(`${BASE}/probe`, { method: "OPTIONS" })],
];

describe("Strict-Transport-Security", () => {
  it.each(requests())("is sent with %s of an https deployment", async (_what, request) => {
    const rt = await testRuntime();
    expect((await probe(request, rt)).headers.get("strict-transport-security")).toBe("max-age=31536000");
  });

  it.each(requests())("is not sent with %s in local development over http", async (_what, request) => {
    const rt = await testRuntime({
      env: { BASE_URL: "http://localhost:8888", ME: "http://localhost:8888/", CONTEXT: "dev" },
    });
    expect(rt.config.ok).toBe(true);
    expect((await probe(request, rt)).headers.get("strict-transport-security")).toBeNull();
  });

  it("is set for every static page by netlify.toml", () => {
    const toml = parse(readFileSync(new URL("../../netlify.toml", import.meta.url), "utf8")) as unknown as {
      headers: { for: string; values: Record<string, string> }[];
    };
    expect(toml.headers.find((h) => h.for === "/*")?.values["Strict-Transport-Security"]).toBe("max-age=31536000");
  });
});

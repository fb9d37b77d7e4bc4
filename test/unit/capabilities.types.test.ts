// Capabilities are types (platform/runtime.ts): an endpoint that needs client discovery, logo
// fetching or a resource's scopes cannot be wired into a function built without them, and a
// handler cannot reach one its endpoint does not declare. `tsc --noEmit -p .` checks this file:
// each @ts-expect-error must meet an error there, or tsc fails. Vitest runs the one assertion.
import { NO_SUBSCRIBERS } from "../../netlify/lib/platform/events.ts";
import { describe, expect, it } from "vitest";
import { discoverNow } from "../../netlify/lib/endpoints/assertion-context.ts";
import { authorizationEndpoint } from "../../netlify/lib/endpoints/auth.ts";
import { metadataEndpoint } from "../../netlify/lib/endpoints/metadata.ts";
import { tokenEndpoint } from "../../netlify/lib/endpoints/token.ts";
import { endpoint, route, type RequestContext } from "../../netlify/lib/http/endpoint.ts";
import { asFunction } from "../../netlify/lib/http/function-adapter.ts";
import { bareClient } from "../helpers/runtime.ts";

const discover = bareClient;
const fetchLogo = () => Promise.reject(new Error("no logo"));
const resourceScopes = () => Promise.resolve({ missing: "none" });

/** Functions as netlify/functions/*.ts would write them; none is called. */
export const wirings = [
  // Each function gets exactly what its endpoint needs.
  asFunction(metadataEndpoint),
  asFunction(tokenEndpoint, { discover }),
  asFunction(authorizationEndpoint, { discover, fetchLogo, resourceScopes }),
  // @ts-expect-error The token endpoint reads a client's document: a function without discovery cannot serve it.
  asFunction(tokenEndpoint),
  // @ts-expect-error GET /auth needs a resource's scopes and POST /auth/logo a logo fetcher too.
  asFunction(authorizationEndpoint, { discover }),
  // @ts-expect-error A capability the endpoint does not use is not bundled into its function.
  asFunction(metadataEndpoint, { discover }),
];

const needsDiscovery = async (ctx: RequestContext<never, "discover">) =>
  Response.json(await discoverNow(ctx)(new URL("https://app.example/")));
// An endpoint needs what its handlers need, said or not.
const discovering = endpoint({
  events: NO_SUBSCRIBERS,
  POST: route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: needsDiscovery }),
});

export const endpoints = [
  asFunction(discovering, { discover }),
  // @ts-expect-error So a function without discovery cannot serve it.
  asFunction(discovering),
  endpoint<never>({
    events: NO_SUBSCRIBERS,
    // @ts-expect-error An endpoint that says it needs nothing cannot run a handler that needs discovery.
    POST: route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: needsDiscovery }),
  }),
];

// @ts-expect-error A handler of an endpoint without discovery cannot read a client's document.
export const reachesDiscovery = (ctx: RequestContext) => discoverNow(ctx);

describe("capabilities", () => {
  it("are checked by the compiler: a wiring that compiles is a function handler", () => {
    expect(wirings.slice(0, 3).map((handler) => typeof handler)).toEqual(["function", "function", "function"]);
  });
});

// The route contract at the type level (checked by `tsc --noEmit`, which runs over test/): a
// route must say who may call it, what body it takes and where it may redirect; its handler reads
// only the form fields it declared; only a session route's handler is handed the owner.
import { describe, expect, it } from "vitest";
import { route, type RequestContext } from "../../netlify/lib/http/endpoint.ts";
import { json } from "../../netlify/lib/http/responses.ts";
import { ownerSession } from "../../netlify/lib/endpoints/owner-caller.ts";

const declared = route({
  caller: "same-origin",
  crossSite: "Own pages only.",
  answers: "json",
  body: { form: ["name", "remember"] },
  redirects: "none",
  run: async (ctx) => json({ name: (await ctx.form()).get("name"), remember: (await ctx.form()).getAll("remember") }),
});

route({
  caller: "anyone",
  answers: "json",
  body: { form: ["name"] },
  redirects: "none",
  // @ts-expect-error a field the route did not declare cannot be read
  run: async (ctx) => json({ other: (await ctx.form()).get("password") }),
});

async function readsPassword(ctx: RequestContext<"password">): Promise<Response> {
  return json({ password: (await ctx.form()).get("password") });
}
// @ts-expect-error a handler that reads a field the body does not declare does not fit the route
route({ caller: "anyone", answers: "json", body: { form: ["name"] }, redirects: "none", run: readsPassword });
// @ts-expect-error a route without a body declaration reads no field either
route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: readsPassword });

// @ts-expect-error a route must say who may call it
route({ answers: "json", body: "none", redirects: "none", run: async () => json({}) });
// @ts-expect-error nor is "whoever" one of the callers
route({ caller: "whoever", answers: "json", body: "none", redirects: "none", run: async () => json({}) });
// @ts-expect-error a same-origin route says what a cross-site post is told
route({ caller: "same-origin", answers: "json", body: "none", redirects: "none", run: async () => json({}) });
// @ts-expect-error a route must say where it may redirect
route({ caller: "anyone", answers: "json", body: "none", run: async () => json({}) });

// Only a session route's handler is given the owner.
route({
  caller: "session",
  crossSite: "Own pages only.",
  owner: ownerSession,
  answers: "json",
  body: "none",
  redirects: "none",
  run: async (_ctx, owner) => json({ id: owner.sessionId }),
});
// The whole case on one line: its two errors (no such handler; the owner's type unknown) land on it.
// prettier-ignore
// @ts-expect-error an open route's handler has no owner to read
route({ caller: "anyone", answers: "json", body: "none", redirects: "none", run: async (_ctx, owner) => json({ id: owner.sessionId }) });
// @ts-expect-error a session route says how its owner is found
route({
  caller: "session",
  crossSite: "Own pages only.",
  answers: "json",
  body: "none",
  redirects: "none",
  run: async () => json({}),
});
route({
  caller: "reconfirmed",
  crossSite: "Own pages only.",
  // @ts-expect-error a route for the owner confirmed again is not satisfied by a session alone
  owner: ownerSession,
  answers: "json",
  body: "none",
  redirects: "none",
  run: async () => json({}),
});

describe("the route contract's types", () => {
  it("are checked by tsc; a declared route is what route() returns", () => {
    expect(declared).toMatchObject({ caller: "same-origin", body: { form: ["name", "remember"] }, redirects: "none" });
  });
});

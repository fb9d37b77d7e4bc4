// GET /indieauth/self-test/me: the home page's check of the owner's page (see profile-links.ts).
import { NO_SUBSCRIBERS } from "../platform/events.ts";
import { endpoint, route } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { selfTestReport } from "../owner/profile-links.ts";

export const selfTestEndpoint = endpoint({
  events: NO_SUBSCRIBERS,
  GET: route({
    caller: "anyone",
    answers: "json",
    body: "none",
    redirects: "none",
    run: async (ctx) => json(await selfTestReport(ctx.config, ctx.rt.now())),
  }),
});

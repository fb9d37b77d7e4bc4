// GET /indieauth/self-test/me: the home page's check of the owner's page (see profile-links.ts).
import { endpoint, route } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import { selfTestReport } from "../owner/profile-links.ts";

export const selfTestEndpoint = endpoint({
  GET: route({
    caller: "anyone",
    answers: "json",
    body: "none",
    redirects: "none",
    run: async (ctx) => json(await selfTestReport(ctx.config, ctx.rt.now())),
  }),
});

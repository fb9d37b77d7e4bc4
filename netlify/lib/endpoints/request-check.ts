// POST /auth/approve/check: before it asks for the password, the sign-in page asks whether the
// request in its address can still be used; only the key here tells a changed request from an
// expired one. No storage. Served by the approve function, so it is warm when the form is sent.
import { route } from "../http/endpoint.ts";
import { json } from "../http/responses.ts";
import type { RequestCheckAnswer } from "../pages/request-problems.ts";
import { checkRequest } from "../protocol/request-object.ts";

export const requestCheck = route({
  caller: "same-origin",
  crossSite: "Only this site's own sign-in page may check its requests.",
  answers: "json",
  body: { form: ["request"] },
  redirects: "none",
  run: async (ctx) => {
    const token = (await ctx.form()).get("request") ?? "";
    const now = ctx.rt.now();
    const checked = await checkRequest(token, ctx.config.keys.requestObject, ctx.config.issuer, now);
    const answer: RequestCheckAnswer = checked.ok
      ? { usable: true, expires_in: Math.max(0, Math.floor((checked.signed.expiresAt - now) / 1000)) }
      : { usable: false, problem: checked.problem };
    return json(answer);
  },
});

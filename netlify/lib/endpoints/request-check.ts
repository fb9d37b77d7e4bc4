// POST /auth/approve/check: the sign-in page asks, before it asks for the password, whether the
// request in its address can still be used. The page can see the request but not check its
// signature (the key stays here), so only this answer can tell a changed request from an
// expired one. It reads nothing from storage and writes nothing: the same check the approve
// step makes, answered as JSON (never cached), to this site's own pages only. The approve
// function serves it, so the function the form goes to is warm by the time it is sent.
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

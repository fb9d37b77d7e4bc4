// POST /revoke (RFC 7009), and the legacy POST /token with action=revoke: the token's whole
// grant is revoked. Unknown tokens get 200 too, so that the answer reveals nothing.
import { InvalidRequest } from "../errors.ts";
import { grantOwningToken, revokeGrant } from "../protocol/grants.ts";
import { answeringOAuthErrors, json, readForm } from "../http/responses.ts";
import type { Runtime } from "../platform/runtime.ts";
import { setupJson } from "../http/setup.ts";

/** token_type_hint is ignored: the token's own prefix says what it is. */
export async function revokeToken(rt: Runtime, form: URLSearchParams): Promise<Response> {
  const token = form.get("token");
  if (token === null || token === "") throw new InvalidRequest("token is required.");
  const grantId = await grantOwningToken(rt.store, token);
  if (grantId) await revokeGrant(rt.store, grantId, rt.now());
  return json({});
}

export async function handleRevocation(req: Request, rt: Runtime): Promise<Response> {
  if (!rt.config.ok) return setupJson(rt.config.problems);
  return answeringOAuthErrors(async () => revokeToken(rt, await readForm(req, undefined, { json: true })));
}

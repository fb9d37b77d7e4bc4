// GET /indieauth/self-test/me: the home page's check of the owner's page (see profile-links.ts).
import { json, methodNotAllowed } from "../http/responses.ts";
import { checkProfileLinks } from "../owner/profile-links.ts";
import type { Runtime } from "../platform/runtime.ts";
import { setupJson } from "../http/setup.ts";

export async function handleProfileLinksCheck(req: Request, rt: Runtime): Promise<Response> {
  if (req.method !== "GET") return methodNotAllowed(["GET"]);
  if (!rt.config.ok) return setupJson(rt.config.problems);
  return json(await checkProfileLinks(rt.config.config));
}

// What each file in netlify/functions/ exports: an endpoint with this deployment's runtime,
// and the requester's address as the platform reports it (context.ip).
import type { Endpoint } from "./endpoint.ts";
import { defaultRuntime, type Runtime } from "../platform/runtime.ts";

/** What the handlers read of Netlify's context: the requester's address, and waitUntil (work
 * the function finishes after the response, such as an alert: owner/alerts.ts). */
type FunctionHandler = (req: Request, context?: { ip?: string; waitUntil?: (work: Promise<unknown>) => void }) => Promise<Response>;

/** What only some functions have: a function file passes the ones its endpoint uses, so that
 * each function bundles (and loads) only what it needs. */
type FunctionServices = Partial<Pick<Runtime, "discover" | "fetchLogo" | "resourceScopes">>;

export function asFunction(endpoint: Endpoint, services: FunctionServices = {}): FunctionHandler {
  let rt: Runtime | undefined;
  return (req, context) => {
    rt ??= { ...defaultRuntime(), ...services };
    const waitUntil = typeof context?.waitUntil === "function" ? context.waitUntil.bind(context) : undefined;
    return endpoint(req, rt, { ip: context?.ip ?? "", userAgent: req.headers.get("user-agent") ?? "", waitUntil });
  };
}

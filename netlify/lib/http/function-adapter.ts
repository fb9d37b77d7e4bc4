// What each file in netlify/functions/ exports: an endpoint with this deployment's runtime,
// and the requester's address as the platform reports it (context.ip).
import type { Endpoint } from "./endpoint.ts";
import { defaultRuntime, type Capabilities, type Capability, type Runtime } from "../platform/runtime.ts";

/** What the handlers read of Netlify's context: the requester's address, and waitUntil (work
 * the function finishes after the response, such as an alert: owner/alerts.ts). */
type FunctionHandler = (
  req: Request,
  context?: { ip?: string; waitUntil?: (work: Promise<unknown>) => void },
) => Promise<Response>;

type Exactly<C extends Capability> = Pick<Capabilities, C> & Partial<Record<Exclude<Capability, C>, never>>;

/** A function file passes exactly the capabilities its endpoint needs (platform/runtime.ts):
 * one it lacks, or one more, does not compile, so a function bundles only what it uses. */
export function asFunction(endpoint: Endpoint): FunctionHandler;
export function asFunction<C extends Capability>(
  endpoint: Endpoint<C>,
  capabilities: NoInfer<Exactly<C>>,
): FunctionHandler;
export function asFunction<C extends Capability>(
  endpoint: Endpoint<C>,
  capabilities?: Pick<Capabilities, C>,
): FunctionHandler {
  let rt: Runtime<C> | undefined;
  return (req, context) => {
    rt ??= { ...defaultRuntime(), ...capabilities } as Runtime<C>;
    const waitUntil = typeof context?.waitUntil === "function" ? context.waitUntil.bind(context) : undefined;
    return endpoint(req, rt, { ip: context?.ip ?? "", userAgent: req.headers.get("user-agent") ?? "", waitUntil });
  };
}

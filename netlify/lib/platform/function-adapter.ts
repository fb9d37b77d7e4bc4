// What each file in netlify/functions/ exports: an endpoint with this deployment's runtime,
// and the requester's address as the platform reports it (context.ip).
import type { Endpoint } from "../http/endpoint.ts";
import { defaultRuntime } from "./runtime.ts";

type FunctionHandler = (req: Request, context?: { ip?: string }) => Promise<Response>;

export function asFunction(endpoint: Endpoint): FunctionHandler {
  return (req, context) => endpoint(req, defaultRuntime(), { ip: context?.ip ?? "", userAgent: req.headers.get("user-agent") ?? "" });
}

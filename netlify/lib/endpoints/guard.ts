// The last line of defence around every function: an unexpected failure (storage down, a bug)
// becomes a clean server_error or a plain page, logged on the server, never a stack trace.
import { json, page } from "../http.ts";

type Handler<C> = (req: Request, context: C) => Promise<Response> | Response;

export function guarded<C = undefined>(handler: Handler<C>, kind: "json" | "page"): (req: Request, context?: C) => Promise<Response> {
  return async (req, context) => {
    try {
      return await handler(req, context as C);
    } catch (error) {
      console.error("unhandled error", error);
      if (kind === "page") {
        return page({ title: "Something went wrong", paragraphs: ["The server could not finish this request. Nothing was changed; please try again in a moment."] }, 503);
      }
      return json({ error: "temporarily_unavailable", error_description: "The server could not finish this request; try again in a moment." }, 503);
    }
  };
}

// The last line of defence around every function: an unexpected failure (storage down or
// slow, a bug) becomes a clean 503 or a plain page, logged on the server, never a stack trace.
import { json, page } from "./responses.ts";
import { StorageUnavailable } from "../platform/store.ts";

type Handler<C> = (req: Request, context: C) => Promise<Response> | Response;

const RETRY_AFTER_SECONDS = "30";

export function guarded<C = undefined>(handler: Handler<C>, kind: "json" | "page"): (req: Request, context?: C) => Promise<Response> {
  return async (req, context) => {
    try {
      return await handler(req, context as C);
    } catch (error) {
      const storage = error instanceof StorageUnavailable;
      if (storage) console.error(`${error.message}: ${error.cause instanceof Error ? error.cause.message : "deadline passed"}`);
      else console.error("unhandled error", error);
      const headers = { "Retry-After": RETRY_AFTER_SECONDS };
      const what = storage ? "The server's storage is not answering right now" : "The server could not finish this request";
      if (kind === "page") {
        return page({ title: "Something went wrong", paragraphs: [`${what}. No sign-in was completed; please try again in a moment.`] }, 503, headers);
      }
      return json({ error: "temporarily_unavailable", error_description: `${what}; try again in a moment.` }, 503, headers);
    }
  };
}

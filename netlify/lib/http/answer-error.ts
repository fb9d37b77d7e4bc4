// The one place that decides how a refusal is answered (after panva/oidc-provider's
// authorization error handler): back to the client's redirect_uri when the error may go there
// and that URI has been verified; otherwise a page for a person, or the JSON body for an API.
// Anything thrown that is not a refusal of ours (storage down, a bug) is logged here and
// answered as "try again", never with a stack trace.
import { AnsweredError, TemporarilyUnavailable } from "../errors.ts";
import { StorageUnavailable } from "../platform/store.ts";
import { redirectToClient } from "../protocol/authorization-response.ts";
import { json, page, redirect } from "./responses.ts";

/** How an endpoint answers: JSON for clients and scripts, pages for a person's browser. */
export type Answers = "json" | "page";

/** A verified redirect URI, and what goes back with every answer sent there. */
export interface ClientReply {
  redirectUri: string;
  state?: string;
  issuer: string;
}

function refusalOf(thrown: unknown): AnsweredError {
  if (thrown instanceof AnsweredError) return thrown;
  if (thrown instanceof StorageUnavailable) {
    console.error(`${thrown.message}: ${thrown.cause instanceof Error ? thrown.cause.message : "deadline passed"}`);
    return new TemporarilyUnavailable("The server's storage is not answering right now");
  }
  console.error("unhandled error", thrown);
  return new TemporarilyUnavailable("The server could not finish this request");
}

export function answerError(thrown: unknown, answers: Answers, reply?: ClientReply): Response {
  const error = refusalOf(thrown);
  if (error.toClient && reply) {
    const params = { error: error.error, error_description: error.description, state: reply.state };
    return redirect(redirectToClient(reply.redirectUri, params, reply.issuer), 302);
  }
  if (answers === "page") {
    const content = { title: error.title, paragraphs: error.paragraphs(), ...(error.link ? { link: error.link } : {}) };
    return page(content, error.status, error.headers());
  }
  return json(error.body(), error.status, error.headers());
}

// The one place that decides how a refusal (errors.ts) is answered: back to the client's verified
// and trusted redirect_uri when the error may go there; to a verified but untrusted one only as a
// link on the page (no open redirector); else a page for a person, or JSON (form-encoded for an
// older client that asks). Anything else thrown (storage down, a bug) is logged, answered "try again".
import { AnsweredError, TemporarilyUnavailable } from "../errors.ts";
import { StorageUnavailable } from "../platform/store.ts";
import { redirectToClient, type ClientReply } from "../protocol/authorization-response.ts";
import { refusalPage } from "./message-page.ts";
import { formEncoded, json, page, redirect } from "./responses.ts";

/** How an endpoint answers: JSON for clients and scripts, pages for a person's browser. */
export type Answers = "json" | "page";

/** Whether the client asked for a form-encoded answer and not for JSON: older IndieAuth clients
 * send `Accept: application/x-www-form-urlencoded` to the token endpoint, and can read nothing
 * else, refusals included. */
export function wantsFormEncoding(req: Request | undefined): boolean {
  const accept = (req?.headers.get("accept") ?? "").toLowerCase();
  return accept.includes("application/x-www-form-urlencoded") && !accept.includes("application/json");
}

function untrustedNote(redirectUri: string): string {
  return `You were not sent back to the app automatically: its return address (${redirectUri}) is not one you approved for this app before. Follow the link only if you trust it.`;
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

/** `req`: the request answered, whose Accept header may ask for a form-encoded refusal. */
export function errorResponse(
  thrown: unknown,
  answers: Answers,
  reply?: ClientReply & { issuer: string },
  req?: Request,
): Response {
  const error = refusalOf(thrown);
  const untrusted = error.allowRedirect && reply !== undefined && !reply.trusted;
  if (error.allowRedirect && reply) {
    const params = { error: error.error, error_description: error.description, state: reply.state };
    const back = redirectToClient(reply.redirectUri, params, reply.issuer);
    if (reply.trusted) return redirect(back, 302);
    error.withLink({ href: back, text: "Back to the app" });
  }
  if (answers === "page")
    return page(
      refusalPage(error, untrusted ? untrustedNote(reply.redirectUri) : undefined),
      error.status,
      error.headers(),
    );
  if (wantsFormEncoding(req)) return formEncoded(error.body(), error.status, error.headers());
  return json(error.body(), error.status, error.headers());
}

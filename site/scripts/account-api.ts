// The owner console's calls to its API, and how their refusals read: the server's words, or
// plain words for what the browser or a proxy answered instead.
import type { LoginRequiredView } from "../../netlify/lib/pages/account-view.ts";

export type SignInMethods = LoginRequiredView["signIn"];

/** A refused API call: its OAuth error code, and the words to show. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** GET without a body, POST with one; every value in a body is a string. */
export async function api<T>(url: string, body?: Record<string, string>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: body ? "POST" : "GET",
      credentials: "same-origin",
      headers: body
        ? { "Content-Type": "application/json", Accept: "application/json" }
        : { Accept: "application/json" },
      body: body ? JSON.stringify(body) : null,
    });
  } catch {
    throw new ApiError("Could not reach the server. Check your connection and try again.", 0, "network", null);
  }
  const data: unknown = await response.json().catch(() => null);
  if (response.ok && isRecord(data)) return data as T;
  throw refusal(response, data);
}

function refusal(response: Response, data: unknown): ApiError {
  const code = isRecord(data) && typeof data.error === "string" ? data.error : "server_error";
  const description = isRecord(data) && typeof data.error_description === "string" ? data.error_description : "";
  return new ApiError(description || fallbackMessage(response), response.status, code, data);
}

/** Words for an answer without its own description (a proxy's error page, say). */
function fallbackMessage(response: Response): string {
  if (response.status === 429) {
    const seconds = Number(response.headers.get("Retry-After"));
    const wait = Number.isFinite(seconds) && seconds > 0 ? `in ${Math.ceil(seconds / 60)} minutes` : "later";
    return `Too many attempts. Try again ${wait}.`;
  }
  return `The server could not do that (HTTP ${response.status}). Please try again.`;
}

/** The sign-in methods of a 401 login_required, or null for any other failure. */
export function loginRequired(error: unknown): SignInMethods | null {
  if (!(error instanceof ApiError) || error.code !== "login_required") return null;
  const signIn = isRecord(error.body) && isRecord(error.body.signIn) ? error.body.signIn : {};
  return { password: signIn.password !== false, passkey: signIn.passkey === true };
}

/** What to tell the person about a failure: the server's words, or the browser's, in plain terms. */
export function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) {
    // SimpleWebAuthn keeps the DOMException's name: cancelled, timed out, or already there.
    if (error.name === "NotAllowedError" || error.name === "AbortError")
      return "The passkey request was cancelled or timed out.";
    if (error.name === "InvalidStateError") return "This device already holds a passkey for this account.";
    return error.message;
  }
  return "Something went wrong. Please try again.";
}

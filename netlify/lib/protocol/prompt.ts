// OpenID Connect's `prompt` (Core 1.0 section 3.1.2.1), as MCP hosts send it: claude.ai sends
// `consent` on every request, Claude Code and the MCP SDK with `offline_access`. This server
// never approves without the owner's click on the consent page, so `consent` asks nothing new
// of it; `login` asks for the password or a passkey even with a live session; `none` wants an
// answer without any page, which here is always a refusal (endpoints/authorize.ts).
import { InvalidRequest } from "../errors.ts";
import type { PromptValue } from "../pages/sign-in-fragment.ts";

/** `select_account` reads as `consent`: one identity, nothing to choose but whether to approve. */
const MEANINGS: Readonly<Record<string, PromptValue>> = {
  none: "none",
  login: "login",
  consent: "consent",
  select_account: "consent",
};

/** The prompt values asked for (unknown ones ignored, OIDC Core 3.1.2.1 lists them as a
 * space-separated list), or none. Throws InvalidRequest for `none` with any other value. */
export function parsePrompt(raw: string | null): PromptValue[] {
  const asked = [...new Set((raw ?? "").split(" ").filter((t) => t !== ""))];
  if (asked.includes("none") && asked.length > 1)
    throw new InvalidRequest("prompt=none cannot be combined with other prompt values.");
  const values: PromptValue[] = [];
  for (const word of asked) {
    const meaning = Object.hasOwn(MEANINGS, word) ? MEANINGS[word]! : undefined;
    if (meaning && !values.includes(meaning)) values.push(meaning);
  }
  return values;
}

/** The values a signed request may carry back to the approve step (never `none`: such a request
 * is answered at GET /auth and never signed). */
export function signedPrompt(value: unknown): PromptValue[] {
  if (!Array.isArray(value)) return [];
  return value.filter((v): v is PromptValue => v === "login" || v === "consent");
}

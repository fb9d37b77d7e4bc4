// What the static sign-in page should offer, passed in its URL fragment beside the request:
// Approve alone with a live session on this device; else the password, a passkey, or both.
// Only hints: the approve step checks everything again.
import type { Config } from "../platform/config.ts";
import { listPasskeys, passwordLoginAllowed } from "../owner/passkeys.ts";
import type { Runtime } from "../platform/runtime.ts";
import { currentSession, sessionSettings } from "../owner/sessions.ts";

export async function signInHints(rt: Runtime, config: Config, req: Request | null): Promise<string> {
  if (req && (await currentSession(rt.store, req, sessionSettings(config), rt.now()))) return "&session=1";
  const passkeys = await listPasskeys(rt.store);
  let hints = passkeys.length > 0 ? "&passkey=1" : "";
  if (!passwordLoginAllowed(config.passwordLogin, passkeys)) hints += "&password=off";
  return hints;
}

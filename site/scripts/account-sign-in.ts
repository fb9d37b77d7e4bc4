// The console's own sign-in: the password, or a passkey, with "Keep me signed in"; on success the
// console loads the overview in place of the form.
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { api, describe } from "./account-api.ts";
import { byId } from "./dom.ts";
import { showProgress } from "./progress.ts";

/** What the console does around a sign-in. */
interface Console {
  load(): Promise<void>;
  showError(id: string, message: string): void;
  say(message: string): void;
}

function remember(): string {
  return byId<HTMLInputElement>("remember").checked ? "true" : "false";
}

/** Runs a sign-in, showing its progress; on success the overview replaces the form. */
async function signingIn(
  page: Console,
  trigger: HTMLButtonElement,
  work: (say: (label: string) => void) => Promise<void>,
  label = "Signing in…",
): Promise<void> {
  page.showError("sign-in-error", "");
  const progress = showProgress(trigger, byId("sign-in-progress"), label);
  try {
    await work(progress.say);
    byId<HTMLInputElement>("password").value = "";
    page.say("");
    await page.load();
    if (!byId("console-view").hidden) byId("console-heading").focus();
  } catch (error) {
    page.showError("sign-in-error", describe(error));
  } finally {
    progress.done();
  }
}

async function signInWithPassword(): Promise<void> {
  await api(`${ACCOUNT_API}/sign-in`, { password: byId<HTMLInputElement>("password").value, remember: remember() });
}

async function signInWithPasskey(say: (label: string) => void): Promise<void> {
  const { options, ticket } = await api<{ options: PublicKeyCredentialRequestOptionsJSON; ticket: string }>(
    `${PASSKEYS_API}/authentication-options`,
    {},
  );
  const response = await startAuthentication({ optionsJSON: options });
  say("Signing in…");
  await api(`${PASSKEYS_API}/sign-in`, { ticket, response: JSON.stringify(response), remember: remember() });
}

export function setUpSignIn(page: Console): void {
  byId("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void signingIn(page, byId<HTMLButtonElement>("sign-in-submit"), signInWithPassword);
  });
  const passkeyButton = byId<HTMLButtonElement>("passkey-sign-in");
  passkeyButton.addEventListener(
    "click",
    () => void signingIn(page, passkeyButton, signInWithPasskey, "Waiting for your passkey…"),
  );
}

// The console's dialog that asks the owner to confirm it is them, with the password or a passkey,
// before a change a session alone may not make: removing a passkey (it weakens sign-in); and,
// where the server shares the blog's origin (any script of the blog holds the session there),
// revoking apps and signing other devices out. It sends the change with that proof and shows a
// refusal in place; it stays open until the change is made or the owner cancels.
import { startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { api, describe, loginRequired, type SignInMethods } from "./account-api.ts";
import { byId } from "./dom.ts";

export interface Confirmation {
  heading: string;
  /** What happens, and why it is asked. */
  text: string;
  /** A further warning, if any. */
  notice?: string;
  /** The password button's words, e.g. "Remove with my password". */
  submit: string;
  /** Offer a passkey too (the browser can use one and the owner has one). */
  passkey: boolean;
  /** The heading that takes the keyboard once the change is made. */
  focusAfter: string;
  /** Sends the change with the proof (`password`, or `passkey_ticket` and `passkey_response`);
   * returns what to tell the owner once it is made. */
  send(proof: Record<string, string>): Promise<string>;
}

/** What the console does once a change is made, or when the session has ended meanwhile. */
export interface ConfirmationOutcome {
  done(message: string, focusAfter: string): Promise<void>;
  signedOut(methods: SignInMethods): void;
}

const dialog = () => byId<HTMLDialogElement>("confirm-dialog");
const password = () => byId<HTMLInputElement>("confirm-password");
let pending: Confirmation | null = null;

function showError(message: string): void {
  const box = byId("confirm-error");
  box.textContent = message;
  box.hidden = message === "";
}

export function askToConfirm(confirmation: Confirmation): void {
  pending = confirmation;
  byId<HTMLFormElement>("confirm-form").reset();
  byId("confirm-heading").textContent = confirmation.heading;
  byId("confirm-text").textContent = confirmation.text;
  byId("confirm-notice").textContent = confirmation.notice ?? "";
  byId("confirm-notice").hidden = confirmation.notice === undefined;
  byId("confirm-submit").textContent = confirmation.submit;
  byId("confirm-with-passkey").hidden = !confirmation.passkey;
  showError("");
  dialog().showModal();
  password().focus();
}

async function passkeyProof(): Promise<Record<string, string>> {
  const { options, ticket } = await api<{ options: PublicKeyCredentialRequestOptionsJSON; ticket: string }>(
    `${PASSKEYS_API}/authentication-options`,
    {},
  );
  const response = await startAuthentication({ optionsJSON: options });
  return { passkey_ticket: ticket, passkey_response: JSON.stringify(response) };
}

/** Sends the pending change with the proof `prove` gathers; a refusal keeps the dialog open. */
async function confirmWith(
  trigger: HTMLButtonElement,
  prove: () => Promise<Record<string, string>>,
  outcome: ConfirmationOutcome,
): Promise<void> {
  const confirmation = pending;
  if (!confirmation) return;
  showError("");
  trigger.disabled = true;
  let message: string;
  try {
    message = await confirmation.send(await prove());
  } catch (error) {
    const methods = loginRequired(error);
    if (methods) {
      dialog().close();
      outcome.signedOut(methods);
    } else {
      showError(describe(error));
    }
    return;
  } finally {
    trigger.disabled = false;
    password().value = "";
  }
  pending = null;
  dialog().close();
  await outcome.done(message, confirmation.focusAfter);
}

export function setUpConfirmation(outcome: ConfirmationOutcome): void {
  byId<HTMLFormElement>("confirm-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = password().value;
    void confirmWith(byId<HTMLButtonElement>("confirm-submit"), () => Promise.resolve({ password: typed }), outcome);
  });
  const withPasskey = byId<HTMLButtonElement>("confirm-with-passkey");
  withPasskey.addEventListener("click", () => void confirmWith(withPasskey, passkeyProof, outcome));
  byId("confirm-cancel").addEventListener("click", () => {
    pending = null;
    dialog().close();
  });
}

// The owner console's script. The page is static; everything it shows comes from the account
// API (account-api.ts) and is written as text (account-render.ts). A change a session alone may
// not make is confirmed in a dialog first (confirm-owner.ts).
import {
  browserSupportsWebAuthn,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
} from "@simplewebauthn/browser";
import type {
  AccountOverview,
  AccountSessionView,
  AppView,
  DeviceView,
  PasskeyView,
} from "../../netlify/lib/pages/account-view.ts";
import { ACCOUNT_API, ASSETS, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { api, describe, loginRequired, type SignInMethods } from "./account-api.ts";
import { appItem, deviceItem, eventRow, fill, passkeyItem, type ItemActions } from "./account-render.ts";
import { setUpSignIn } from "./account-sign-in.ts";
import { askToConfirm, setUpConfirmation, type Confirmation } from "./confirm-owner.ts";
import { byId, hostOf } from "./dom.ts";
import { shownElsewhere } from "./own-window.ts";

const webAuthn = browserSupportsWebAuthn();
/** The overview shown, for what the buttons need to know (whether to confirm, passkeys). */
let shown: AccountOverview | null = null;

/** The console uses the width of the screen; signing in is as narrow as an app's sign-in page. */
function widen(wide: boolean): void {
  document.querySelector("main")?.classList.toggle("wide", wide);
}

const actions: ItemActions = {
  revoke: (app, button) => changeOrConfirm(button, revokeConfirmation(app)),
  rename: (passkey, button) => void renamePasskey(button, passkey),
  remove: (passkey, last) => askToConfirm(removalConfirmation(passkey, last)),
  signOut: (device, button) =>
    device.current ? void act(button, () => signOut(device.id)) : changeOrConfirm(button, signOutConfirmation(device)),
};

function showConsole(overview: AccountOverview): void {
  shown = overview;
  widen(true);
  byId("sign-in-view").hidden = true;
  byId("console-view").hidden = false;
  byId("console-me").textContent = overview.me;
  fill("app-list", "apps-empty", overview.apps, (app, index) => appItem(app, index, actions));
  byId("revoke-all").hidden = overview.apps.length === 0;
  // The last passkey with PASSWORD_LOGIN=off: removing it turns password sign-in back on.
  const last = overview.passkeys.length === 1 && !overview.passwordLogin;
  fill("passkey-list", "passkeys-empty", overview.passkeys, (passkey, index) =>
    passkeyItem(passkey, index, last, actions),
  );
  byId("password-off-note").hidden = overview.passwordLogin;
  fill("device-list", "devices-empty", overview.devices, (device, index) => deviceItem(device, index, actions));
  fill("event-rows", "events-empty", overview.events, eventRow);
  byId("events-table").hidden = overview.events.length === 0;
}

function showSignIn(methods: SignInMethods, message = ""): void {
  shown = null;
  widen(false);
  byId("console-view").hidden = true;
  byId("sign-in-view").hidden = false;
  const passkey = methods.passkey && webAuthn;
  const password = byId<HTMLInputElement>("password");
  byId("password-part").hidden = !methods.password;
  byId("sign-in-submit").hidden = !methods.password;
  password.required = methods.password;
  byId("passkey-sign-in").hidden = !passkey;
  byId("remember-field").hidden = !methods.password && !passkey;
  if (!methods.password && !passkey) {
    message ||= methods.passkey
      ? "Only passkeys sign in here, and this browser cannot use them. Open this page in a browser that supports passkeys."
      : "No way to sign in is set up on this server.";
  }
  showError("sign-in-error", message);
  if (methods.password) password.focus();
  else if (passkey) byId("passkey-sign-in").focus();
}

function showError(id: string, message: string): void {
  const box = byId(id);
  box.textContent = message;
  box.hidden = message === "";
}

function say(message: string): void {
  byId("status").textContent = message;
}

const SIGNED_OUT = "You are no longer signed in on this device. Sign in again.";

// ---- Loading and acting ----

/** Asks whether this device is signed in (answered 200 either way, so a signed-out visit logs
 * no failed request) and shows the overview or the sign-in. Never throws. */
async function load(): Promise<void> {
  try {
    const view = await api<AccountSessionView>(`${ACCOUNT_API}/session`);
    if (view.signedIn) showConsole(view.account);
    else showSignIn({ password: view.signIn.password !== false, passkey: view.signIn.passkey === true });
  } catch (error) {
    const methods = loginRequired(error);
    if (methods) showSignIn(methods);
    else showError("console-error", describe(error));
  } finally {
    byId("loading").hidden = true;
  }
}

/** Runs one console action: its button waits, then the page shows the new state, or why not. */
async function act(trigger: HTMLButtonElement, work: () => Promise<string>): Promise<void> {
  showError("console-error", "");
  say("");
  trigger.disabled = true;
  const section = trigger.closest("section");
  try {
    const done = await work();
    await load();
    say(done);
    // The pressed button may be gone after re-rendering: keep the keyboard in the same section.
    if (!document.activeElement || document.activeElement === document.body)
      section?.querySelector<HTMLElement>("h2")?.focus();
  } catch (error) {
    say("");
    const methods = loginRequired(error);
    if (methods) showSignIn(methods, SIGNED_OUT);
    else showError("console-error", describe(error));
  } finally {
    trigger.disabled = false;
  }
}

/** Where the server shares the blog's origin, the dialog asks for the password or a passkey
 * first; elsewhere the browser's confirm (when `question` is given) is enough. */
function changeOrConfirm(trigger: HTMLButtonElement, confirmation: Confirmation, question?: string): void {
  if (shown?.confirmChanges) askToConfirm(confirmation);
  else if (question === undefined || confirm(question)) void act(trigger, () => confirmation.send({}));
}

const passkeyOffered = () => webAuthn && (shown?.passkeys.length ?? 0) > 0;
const SHARED =
  "This server shares your blog's address, so a script on the blog could act with your session: confirm it is you, with your password or a passkey.";

function revokeConfirmation(app: AppView | "all"): Confirmation {
  const which = app === "all" ? "all" : app.id;
  return {
    heading: app === "all" ? "Revoke every app?" : `Revoke ${app.name || hostOf(app.clientId)}?`,
    text: `${app === "all" ? "Each app" : "The app"} will have to ask you again. ${SHARED}`,
    submit: "Revoke with my password",
    passkey: passkeyOffered(),
    focusAfter: "apps-heading",
    send: (proof) => revoke(which, proof),
  };
}

function signOutConfirmation(device: DeviceView | "all"): Confirmation {
  return {
    heading: device === "all" ? "Sign out everywhere?" : `Sign out ${device.label}?`,
    text: `${device === "all" ? "Every device, this one included," : "That device"} will have to sign in again. ${SHARED}`,
    submit: "Sign out with my password",
    passkey: passkeyOffered(),
    focusAfter: "devices-heading",
    send: (proof) => signOut(device === "all" ? "all" : device.id, proof),
  };
}

// Removing a passkey weakens sign-in, so the server asks for the password or a passkey again,
// as when adding one, wherever it runs.
function removalConfirmation(passkey: PasskeyView, last: boolean): Confirmation {
  return {
    heading: `Remove the passkey “${passkey.name}”?`,
    text: "It will no longer sign you in. Confirm it is you, with your password or a passkey.",
    ...(last ? { notice: "This is your last passkey: once it is removed, your password signs in again." } : {}),
    submit: "Remove with my password",
    passkey: webAuthn,
    focusAfter: "passkeys-heading",
    send: async (proof) => {
      await api(`${ACCOUNT_API}/passkeys/delete`, { id: passkey.id, ...proof });
      return "Passkey removed.";
    },
  };
}

async function revoke(app: string, proof: Record<string, string> = {}): Promise<string> {
  const { revoked } = await api<{ revoked: number }>(`${ACCOUNT_API}/revoke`, { app, ...proof });
  return app === "all"
    ? `Revoked. ${revoked} ${revoked === 1 ? "app no longer holds" : "apps no longer hold"} a token.`
    : "Revoked.";
}

/** No device: this one. Otherwise a session's id, or "all". */
async function signOut(device?: string, proof: Record<string, string> = {}): Promise<string> {
  await api(`${ACCOUNT_API}/sign-out`, device ? { device, ...proof } : {});
  return device === "all" ? "Signed out. Every device must sign in again." : "Signed out.";
}

async function renamePasskey(trigger: HTMLButtonElement, passkey: PasskeyView): Promise<void> {
  const name = prompt("A new name for this passkey:", passkey.name)?.trim();
  if (!name || name === passkey.name) return;
  await act(trigger, async () => {
    await api(`${ACCOUNT_API}/passkeys/rename`, { id: passkey.id, name });
    return "Renamed.";
  });
}

/** Password again, then the browser makes the key, then the server keeps its public half. Each
 * stage is said while its button waits (the first call may wake a function, the second waits on
 * the browser's prompt), and the new passkey is listed from the server's answer at once, before
 * the overview is read again. */
async function addPasskey(): Promise<string> {
  const password = byId<HTMLInputElement>("passkey-password");
  const name = byId<HTMLInputElement>("passkey-name").value.trim() || "Passkey";
  say("Checking your password…");
  const { options, ticket } = await api<{ options: PublicKeyCredentialCreationOptionsJSON; ticket: string }>(
    `${PASSKEYS_API}/registration-options`,
    {
      password: password.value,
    },
  );
  password.value = "";
  say(
    "Your browser asks you to create the passkey: follow its prompt (fingerprint, face, screen lock or security key).",
  );
  const response = await startRegistration({ optionsJSON: options });
  say("Saving the passkey…");
  const { passkey } = await api<{ passkey: PasskeyView }>(`${PASSKEYS_API}/registration`, {
    ticket,
    response: JSON.stringify(response),
    name,
  });
  if (shown) showConsole({ ...shown, passkeys: [...shown.passkeys.filter((p) => p.id !== passkey.id), passkey] });
  byId<HTMLFormElement>("add-passkey-form").reset();
  say(`Passkey “${passkey.name}” added.`);
  return `Passkey “${passkey.name}” added.`;
}
// ---- Wiring ----

function setUp(): void {
  setUpSignIn({ load, showError, say });
  setUpConfirmation({
    done: async (message, focusAfter) => {
      await load();
      say(message);
      byId(focusAfter).focus();
    },
    signedOut: (methods) => showSignIn(methods, SIGNED_OUT),
  });

  const signOutButton = byId<HTMLButtonElement>("sign-out");
  signOutButton.addEventListener("click", () => void act(signOutButton, () => signOut()));
  const everywhere = byId<HTMLButtonElement>("sign-out-everywhere");
  everywhere.addEventListener("click", () =>
    changeOrConfirm(everywhere, signOutConfirmation("all"), "Sign out everywhere, this device included?"),
  );
  const revokeAll = byId<HTMLButtonElement>("revoke-all");
  revokeAll.addEventListener("click", () =>
    changeOrConfirm(
      revokeAll,
      revokeConfirmation("all"),
      "Revoke every app's tokens? Each app will have to ask you again.",
    ),
  );

  const addForm = byId<HTMLFormElement>("add-passkey-form");
  addForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void act(byId<HTMLButtonElement>("add-passkey"), addPasskey);
  });
  if (!webAuthn) {
    byId("webauthn-note").hidden = false;
    for (const control of addForm.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button"))
      control.disabled = true;
  }

  // The owner's photo is baked in at build time; hide it rather than show a broken image.
  for (const img of document.querySelectorAll<HTMLImageElement>(".owner img")) {
    img.addEventListener("error", () => (img.hidden = true));
    if (img.complete && img.naturalWidth === 0) img.hidden = true;
  }
}

// Framed, or held by the window that opened it: nothing of the console is loaded or shown, and
// the console's own cards (account-alerts.ts, account-connections.ts) are loaded only here.
if (!shownElsewhere("account page")) {
  setUp();
  void load();
  for (const card of ["account-alerts", "account-connections"]) {
    const script = document.createElement("script");
    script.type = "module";
    script.src = `${ASSETS}/${card}.js`;
    document.body.append(script);
  }
}

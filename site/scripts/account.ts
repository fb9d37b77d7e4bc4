// The owner console's script. The page is static; everything it shows comes from the account
// API, and is written with textContent and DOM calls, never as HTML: app names, logos and
// client_ids are a client's own claims, and device labels come from a User-Agent header.
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import type { AccountOverview, AccountSessionView, AppView, DeviceView, LoginRequiredView, PasskeyView, SignInEventView } from "../../netlify/lib/pages/account-view.ts";
import { ACCOUNT_API, PASSKEYS_API } from "../../netlify/lib/pages/paths.ts";
import { showProgress } from "./progress.ts";
import { byId, hostOf } from "./dom.ts";

type SignInMethods = LoginRequiredView["signIn"];

/** A refused API call: its OAuth error code, and the words to show. */
class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

const webAuthn = browserSupportsWebAuthn();


function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---- The API ----

/** GET without a body, POST with one; every value in a body is a string. */
async function api<T>(url: string, body?: Record<string, string>): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: body ? "POST" : "GET",
      credentials: "same-origin",
      headers: body ? { "Content-Type": "application/json", Accept: "application/json" } : { Accept: "application/json" },
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
function loginRequired(error: unknown): SignInMethods | null {
  if (!(error instanceof ApiError) || error.code !== "login_required") return null;
  const signIn = isRecord(error.body) && isRecord(error.body.signIn) ? error.body.signIn : {};
  return { password: signIn.password !== false, passkey: signIn.passkey === true };
}

/** What to tell the person about a failure: the server's words, or the browser's, in plain terms. */
function describe(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) {
    // SimpleWebAuthn keeps the DOMException's name: cancelled, timed out, or already there.
    if (error.name === "NotAllowedError" || error.name === "AbortError") return "The passkey request was cancelled or timed out.";
    if (error.name === "InvalidStateError") return "This device already holds a passkey for this account.";
    return error.message;
  }
  return "Something went wrong. Please try again.";
}

// ---- Dates ----

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const relativeFormat = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86400],
  ["month", 30 * 86400],
  ["week", 7 * 86400],
  ["day", 86400],
  ["hour", 3600],
  ["minute", 60],
];

/** "3 days ago", "in 2 months", "just now". */
function relative(at: number): string {
  const seconds = (at - Date.now()) / 1000;
  const unit = UNITS.find(([, size]) => Math.abs(seconds) >= size);
  if (!unit) return seconds < 0 ? "just now" : "in a moment";
  return relativeFormat.format(Math.round(seconds / unit[1]), unit[0]);
}

/** A date for people (and a machine-readable one for assistive tools). */
function when(at: number): HTMLTimeElement {
  const time = element("time", `${dateFormat.format(at)} (${relative(at)})`);
  time.dateTime = new Date(at).toISOString();
  return time;
}

// ---- Rendering ----

/** A list item: a heading (its id describes the item's buttons), facts, then the buttons. */
function item(kind: string, id: string, index: number, name: string, badges: string[]): { li: HTMLLIElement; head: HTMLDivElement; nameId: string } {
  const li = element("li", undefined, "item");
  li.dataset[`${kind}Id`] = id;
  const nameId = `${kind}-${index}-name`;
  const heading = element("h3", name, "break");
  heading.id = nameId;
  for (const badge of badges) heading.append(" ", element("span", badge, "badge"));
  const head = element("div", undefined, "item-head");
  head.append(heading);
  li.append(head);
  return { li, head, nameId };
}

function facts(entries: [string, string | Node][]): HTMLDListElement {
  const list = element("dl", undefined, "facts");
  for (const [term, value] of entries) {
    const dd = element("dd");
    dd.append(value);
    list.append(element("dt", term), dd);
  }
  return list;
}

/** A button named by its text alone ("Revoke"), described by the item it acts on. */
function button(text: string, describedBy: string, onClick: (button: HTMLButtonElement) => void): HTMLButtonElement {
  const node = element("button", text);
  node.type = "button";
  node.setAttribute("aria-describedby", describedBy);
  node.addEventListener("click", () => onClick(node));
  return node;
}

function buttons(...nodes: HTMLButtonElement[]): HTMLDivElement {
  const row = element("div", undefined, "item-actions");
  row.append(...nodes);
  return row;
}


function appItem(app: AppView, index: number): HTMLLIElement {
  const { li, head, nameId } = item("app", app.id, index, app.name || hostOf(app.clientId), []);
  // Only web addresses: a data: or javascript: "logo" is not loaded at all.
  if (app.logoUri && /^https?:\/\//i.test(app.logoUri)) {
    const logo = element("img", undefined, "logo");
    logo.alt = "";
    logo.loading = "lazy";
    logo.referrerPolicy = "no-referrer";
    logo.addEventListener("error", () => (logo.hidden = true));
    logo.src = app.logoUri;
    head.prepend(logo);
  }
  const scopes = element("p", undefined, "chips");
  if (app.scopes.length === 0) scopes.append(element("span", "identity only", "muted"));
  else scopes.append(...app.scopes.map((scope) => element("code", scope, "chip")));
  li.append(
    element("p", app.clientId, "client-id break"),
    scopes,
    facts([
      ["Authorised", when(app.createdAt)],
      ["Last used", when(app.lastUsedAt)],
      ["Expires", when(app.expiresAt)],
    ]),
    buttons(button("Revoke", nameId, (b) => void act(b, () => revoke(app.id)))),
  );
  return li;
}

function passkeyItem(passkey: PasskeyView, index: number, last: boolean): HTMLLIElement {
  const { li, nameId } = item("passkey", passkey.id, index, passkey.name, passkey.backedUp ? ["synced"] : []);
  li.append(
    facts([
      ["Added", when(passkey.createdAt)],
      ["Last used", passkey.lastUsedAt ? when(passkey.lastUsedAt) : "Never"],
    ]),
    buttons(
      button("Rename", nameId, (b) => void renamePasskey(b, passkey)),
      button("Remove", nameId, () => askToRemove(passkey, last)),
    ),
  );
  return li;
}

const METHODS: Record<SignInEventView["method"], string> = { password: "Password", passkey: "Passkey", session: "Already signed in" };

function deviceItem(device: DeviceView, index: number): HTMLLIElement {
  const { li, nameId } = item("device", device.id, index, device.label, device.current ? ["this device"] : []);
  const until = device.persistent ? when(device.expiresAt) : `Until you close the browser (at the latest ${dateFormat.format(device.expiresAt)})`;
  li.append(
    facts([
      ["IP address", device.ip],
      ["Signed in with", METHODS[device.method]],
      ["Signed in", when(device.createdAt)],
      ["Last seen", when(device.lastSeenAt)],
      ["Stays signed in", until],
    ]),
    buttons(button("Sign out", nameId, (b) => void act(b, () => signOut(device.id)))),
  );
  return li;
}

/** A table cell with its column's name, which narrow screens show beside the value. */
function cell(label: string, ...content: (string | Node)[]): HTMLTableCellElement {
  const td = element("td");
  td.dataset.label = label;
  const value = element("span", undefined, "value");
  value.append(...content);
  td.append(value);
  return td;
}

function eventRow(event: SignInEventView): HTMLTableRowElement {
  const row = element("tr", undefined, event.outcome === "success" ? "outcome-success" : "outcome-failure");
  const outcome = [element("strong", event.outcome === "success" ? "Success" : "Failed")];
  if (event.reason) outcome.push(element("span", event.reason, "reason"));
  row.append(
    cell("Time", when(event.at)),
    cell("Outcome", ...outcome),
    cell("Method", METHODS[event.method]),
    cell("Where", event.where === "account" ? "Account page" : (event.clientId ?? "An app")),
    cell("IP", event.ip),
  );
  return row;
}

/** Fills a list, or shows its empty-state text instead. */
function fill<T>(listId: string, emptyId: string, values: readonly T[], render: (value: T, index: number) => HTMLElement): void {
  byId(listId).replaceChildren(...values.map(render));
  byId(listId).hidden = values.length === 0;
  byId(emptyId).hidden = values.length > 0;
}

/** The console uses the width of the screen; signing in is as narrow as an app's sign-in page. */
function widen(wide: boolean): void {
  document.querySelector("main")?.classList.toggle("wide", wide);
}

function showConsole(overview: AccountOverview): void {
  widen(true);
  byId("sign-in-view").hidden = true;
  byId("console-view").hidden = false;
  byId("console-me").textContent = overview.me;
  fill("app-list", "apps-empty", overview.apps, appItem);
  byId("revoke-all").hidden = overview.apps.length === 0;
  // The last passkey with PASSWORD_LOGIN=off: removing it turns password sign-in back on.
  const last = overview.passkeys.length === 1 && !overview.passwordLogin;
  fill("passkey-list", "passkeys-empty", overview.passkeys, (passkey, index) => passkeyItem(passkey, index, last));
  byId("password-off-note").hidden = overview.passwordLogin;
  fill("device-list", "devices-empty", overview.devices, deviceItem);
  fill("event-rows", "events-empty", overview.events, eventRow);
  byId("events-table").hidden = overview.events.length === 0;
}

function showSignIn(methods: SignInMethods, message = ""): void {
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
    if (!document.activeElement || document.activeElement === document.body) section?.querySelector<HTMLElement>("h2")?.focus();
  } catch (error) {
    const methods = loginRequired(error);
    if (methods) showSignIn(methods, "You are no longer signed in on this device. Sign in again.");
    else showError("console-error", describe(error));
  } finally {
    trigger.disabled = false;
  }
}

async function revoke(app: string): Promise<string> {
  const { revoked } = await api<{ revoked: number }>(`${ACCOUNT_API}/revoke`, { app });
  return app === "all" ? `Revoked. ${revoked} ${revoked === 1 ? "app no longer holds" : "apps no longer hold"} a token.` : "Revoked.";
}

/** No device: this one. Otherwise a session's id, or "all". */
async function signOut(device?: string): Promise<string> {
  await api(`${ACCOUNT_API}/sign-out`, device ? { device } : {});
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

// Removing a passkey weakens sign-in, so the server asks for the password or a passkey again,
// as when adding one; the dialog asks for either and shows any refusal in place.

/** The passkey whose removal the dialog is confirming. */
let removing: PasskeyView | null = null;

function askToRemove(passkey: PasskeyView, last: boolean): void {
  removing = passkey;
  byId<HTMLFormElement>("remove-passkey-form").reset();
  byId("remove-passkey-name").textContent = passkey.name;
  byId("remove-passkey-last").hidden = !last;
  byId("remove-passkey-with-passkey").hidden = !webAuthn;
  showError("remove-passkey-error", "");
  byId<HTMLDialogElement>("remove-passkey-dialog").showModal();
  byId("remove-passkey-password").focus();
}

/** Sends the removal with the proof `confirm` gathers; the dialog stays open on a refusal. */
async function removePasskey(trigger: HTMLButtonElement, confirm: () => Promise<Record<string, string>>): Promise<void> {
  const passkey = removing;
  if (!passkey) return;
  const dialog = byId<HTMLDialogElement>("remove-passkey-dialog");
  showError("remove-passkey-error", "");
  trigger.disabled = true;
  try {
    await api(`${ACCOUNT_API}/passkeys/delete`, { id: passkey.id, ...(await confirm()) });
  } catch (error) {
    const methods = loginRequired(error);
    if (methods) {
      dialog.close();
      showSignIn(methods, "You are no longer signed in on this device. Sign in again.");
    } else {
      showError("remove-passkey-error", describe(error));
    }
    return;
  } finally {
    trigger.disabled = false;
    byId<HTMLInputElement>("remove-passkey-password").value = "";
  }
  removing = null;
  dialog.close();
  await load();
  say("Passkey removed.");
  byId("passkeys-heading").focus();
}

async function passkeyConfirmation(): Promise<Record<string, string>> {
  const { options, ticket } = await api<{ options: PublicKeyCredentialRequestOptionsJSON; ticket: string }>(`${PASSKEYS_API}/authentication-options`, {});
  const response = await startAuthentication({ optionsJSON: options });
  return { passkey_ticket: ticket, passkey_response: JSON.stringify(response) };
}

/** Password again, then the browser makes the key, then the server keeps its public half. */
async function addPasskey(): Promise<string> {
  const password = byId<HTMLInputElement>("passkey-password");
  const name = byId<HTMLInputElement>("passkey-name").value.trim() || "Passkey";
  const { options, ticket } = await api<{ options: PublicKeyCredentialCreationOptionsJSON; ticket: string }>(`${PASSKEYS_API}/registration-options`, {
    password: password.value,
  });
  password.value = "";
  const response = await startRegistration({ optionsJSON: options });
  await api(`${PASSKEYS_API}/registration`, { ticket, response: JSON.stringify(response), name });
  byId<HTMLFormElement>("add-passkey-form").reset();
  return "Passkey added.";
}

// ---- Signing in ----

function remember(): string {
  return byId<HTMLInputElement>("remember").checked ? "true" : "false";
}

/** Runs a sign-in, showing its progress; on success the overview replaces the form. */
async function signingIn(trigger: HTMLButtonElement, work: (say: (label: string) => void) => Promise<void>, label = "Signing in…"): Promise<void> {
  showError("sign-in-error", "");
  const progress = showProgress(trigger, byId("sign-in-progress"), label);
  try {
    await work(progress.say);
    byId<HTMLInputElement>("password").value = "";
    say("");
    await load();
    if (!byId("console-view").hidden) byId("console-heading").focus();
  } catch (error) {
    showError("sign-in-error", describe(error));
  } finally {
    progress.done();
  }
}

async function signInWithPassword(): Promise<void> {
  await api(`${ACCOUNT_API}/sign-in`, { password: byId<HTMLInputElement>("password").value, remember: remember() });
}

async function signInWithPasskey(say: (label: string) => void): Promise<void> {
  const { options, ticket } = await api<{ options: PublicKeyCredentialRequestOptionsJSON; ticket: string }>(`${PASSKEYS_API}/authentication-options`, {});
  const response = await startAuthentication({ optionsJSON: options });
  say("Signing in…");
  await api(`${PASSKEYS_API}/sign-in`, { ticket, response: JSON.stringify(response), remember: remember() });
}

// ---- Wiring ----

function setUp(): void {
  byId("sign-in-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void signingIn(byId<HTMLButtonElement>("sign-in-submit"), signInWithPassword);
  });
  const passkeyButton = byId<HTMLButtonElement>("passkey-sign-in");
  passkeyButton.addEventListener("click", () => void signingIn(passkeyButton, signInWithPasskey, "Waiting for your passkey…"));

  const signOutButton = byId<HTMLButtonElement>("sign-out");
  signOutButton.addEventListener("click", () => void act(signOutButton, () => signOut()));
  const everywhere = byId<HTMLButtonElement>("sign-out-everywhere");
  everywhere.addEventListener("click", () => {
    if (confirm("Sign out everywhere, this device included?")) void act(everywhere, () => signOut("all"));
  });
  const revokeAll = byId<HTMLButtonElement>("revoke-all");
  revokeAll.addEventListener("click", () => {
    if (confirm("Revoke every app's tokens? Each app will have to ask you again.")) void act(revokeAll, () => revoke("all"));
  });

  const removeForm = byId<HTMLFormElement>("remove-passkey-form");
  removeForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const password = byId<HTMLInputElement>("remove-passkey-password").value;
    void removePasskey(byId<HTMLButtonElement>("remove-passkey-submit"), () => Promise.resolve({ password }));
  });
  const withPasskey = byId<HTMLButtonElement>("remove-passkey-with-passkey");
  withPasskey.addEventListener("click", () => void removePasskey(withPasskey, passkeyConfirmation));
  byId("remove-passkey-cancel").addEventListener("click", () => byId<HTMLDialogElement>("remove-passkey-dialog").close());

  const addForm = byId<HTMLFormElement>("add-passkey-form");
  addForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void act(byId<HTMLButtonElement>("add-passkey"), addPasskey);
  });
  if (!webAuthn) {
    byId("webauthn-note").hidden = false;
    for (const control of addForm.querySelectorAll<HTMLInputElement | HTMLButtonElement>("input, button")) control.disabled = true;
  }

  // The owner's photo is baked in at build time; hide it rather than show a broken image.
  for (const img of document.querySelectorAll<HTMLImageElement>(".owner img")) {
    img.addEventListener("error", () => (img.hidden = true));
    if (img.complete && img.naturalWidth === 0) img.hidden = true;
  }
}

setUp();
void load();

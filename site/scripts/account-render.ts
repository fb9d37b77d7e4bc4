// The owner console's lists, built with DOM calls and textContent only, never as HTML: app
// names, logos and client_ids are a client's own claims, and device labels come from a
// User-Agent header. What each button does is the console's (account.ts), passed in.
import type { AppView, DeviceView, PasskeyView, SignInEventView } from "../../netlify/lib/pages/account-view.ts";
import { CLIENT_LOGO_PATH } from "../../netlify/lib/pages/paths.ts";
import { byId, hostOf } from "./dom.ts";

/** The logo's address when it is this server's own logo path, on this page's origin; else null. */
function ownLogoUrl(value: string | undefined): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value, location.href);
    return url.origin === location.origin && url.pathname === CLIENT_LOGO_PATH ? url : null;
  } catch {
    return null;
  }
}

/** What the buttons of the lists do. */
export interface ItemActions {
  revoke(app: AppView, button: HTMLButtonElement): void;
  rename(passkey: PasskeyView, button: HTMLButtonElement): void;
  remove(passkey: PasskeyView, last: boolean): void;
  signOut(device: DeviceView, button: HTMLButtonElement): void;
}

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
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

/** A list item: a heading (its id describes the item's buttons), facts, then the buttons. */
function item(
  kind: string,
  id: string,
  index: number,
  name: string,
  badges: string[],
): { li: HTMLLIElement; head: HTMLDivElement; nameId: string } {
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

/** A scope the app holds, each once; with several grants, one that only some of them hold says
 * how many (it leaves when they expire or are revoked). */
function scopeChip(scope: string, app: AppView): HTMLElement {
  const chip = element("code", scope, "chip");
  const holding = Object.hasOwn(app.scopeGrants, scope) ? app.scopeGrants[scope]! : app.grants;
  if (app.grants > 1 && holding < app.grants)
    chip.append(element("span", ` · ${holding} of ${app.grants} grants`, "muted"));
  return chip;
}

export function appItem(app: AppView, index: number, actions: ItemActions): HTMLLIElement {
  const { li, head, nameId } = item("app", app.id, index, app.name || hostOf(app.clientId), []);
  // Only this server's logo path (the API signs it): nothing is loaded from an app's host.
  const logoUrl = ownLogoUrl(app.logoUri);
  if (logoUrl && /^https?:\/\//i.test(logoUrl.href)) {
    const logo = element("img", undefined, "logo");
    logo.alt = "";
    logo.loading = "lazy";
    logo.referrerPolicy = "no-referrer";
    logo.addEventListener("error", () => (logo.hidden = true));
    logo.src = logoUrl.href;
    head.prepend(logo);
  }
  const scopes = element("p", undefined, "chips");
  if (app.scopes.length === 0 && !app.moreScopes) scopes.append(element("span", "identity only", "muted"));
  else scopes.append(...app.scopes.map((scope) => scopeChip(scope, app)));
  if (app.moreScopes) scopes.append(element("span", "and other scopes", "muted"));
  li.append(
    element("p", app.clientId, "client-id break"),
    scopes,
    facts([
      ["Authorised", when(app.createdAt)],
      ["Last used", when(app.lastUsedAt)],
      ["Expires", when(app.expiresAt)],
    ]),
    buttons(button("Revoke", nameId, (b) => actions.revoke(app, b))),
  );
  return li;
}

export function passkeyItem(passkey: PasskeyView, index: number, last: boolean, actions: ItemActions): HTMLLIElement {
  const { li, nameId } = item("passkey", passkey.id, index, passkey.name, passkey.backedUp ? ["synced"] : []);
  li.append(
    facts([
      ["Added", when(passkey.createdAt)],
      ["Last used", passkey.lastUsedAt ? when(passkey.lastUsedAt) : "Never"],
    ]),
    buttons(
      button("Rename", nameId, (b) => actions.rename(passkey, b)),
      button("Remove", nameId, () => actions.remove(passkey, last)),
    ),
  );
  return li;
}

const METHODS: Record<SignInEventView["method"], string> = {
  password: "Password",
  passkey: "Passkey",
  session: "Already signed in",
};

export function deviceItem(device: DeviceView, index: number, actions: ItemActions): HTMLLIElement {
  const { li, nameId } = item("device", device.id, index, device.label, device.current ? ["this device"] : []);
  const until = device.persistent
    ? when(device.expiresAt)
    : `Until you close the browser (at the latest ${dateFormat.format(device.expiresAt)})`;
  li.append(
    facts([
      ["IP address", device.ip],
      ["Signed in with", METHODS[device.method]],
      ["Signed in", when(device.createdAt)],
      ["Last seen", when(device.lastSeenAt)],
      ["Stays signed in", until],
    ]),
    buttons(button("Sign out", nameId, (b) => actions.signOut(device, b))),
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

export function eventRow(event: SignInEventView): HTMLTableRowElement {
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
export function fill<T>(
  listId: string,
  emptyId: string,
  values: readonly T[],
  render: (value: T, index: number) => HTMLElement,
): void {
  byId(listId).replaceChildren(...values.map(render));
  byId(listId).hidden = values.length === 0;
  byId(emptyId).hidden = values.length > 0;
}

// The sign-in page's script. The page is static; the request it shows arrives, signed by the
// server, in the URL fragment. Everything is written with textContent, never as HTML, and the
// server checks the signature again when the form comes back, so nothing here is trusted.
import { browserSupportsWebAuthn, startAuthentication } from "@simplewebauthn/browser";
import { CLIENT_LOGO_PATH, PASSKEYS_API, REQUEST_CHECK_PATH } from "../../netlify/lib/pages/paths.ts";
import { REQUEST_PROBLEMS, START_AGAIN, type RequestCheckAnswer } from "../../netlify/lib/pages/request-problems.ts";
import {
  CONFIRM_NOTES,
  readSignInFragment,
  shownRequest,
  SIGN_IN_PROBLEMS,
  type SignInOffer,
} from "../../netlify/lib/pages/sign-in-fragment.ts";
import { readRequestShape, type RequestProblem } from "../../netlify/lib/pages/request-object-shape.ts";
import { scopeWords } from "../../netlify/lib/protocol/scope-words.ts";
import { isKnownScope } from "../../netlify/lib/protocol/scopes.ts";
import { isUnderClientPath } from "../../netlify/lib/core/urls.ts";
import { guardApprove, type ApproveGate } from "./approve-gate.ts";
import { byId, hostOf } from "./dom.ts";
import { allowFormTo } from "./form-action.ts";
import { showRegisteredApp } from "./registered-app.ts";
import { shownElsewhere } from "./own-window.ts";

/** `fromResource`: listed by the resource's own metadata as its default (the app named none);
 * `resourceHost`: the host of the resource the request names, in whose terms scopes are said. */
function scopeItem(scope: string, fromResource: boolean, resourceHost?: string): HTMLLIElement {
  const known = isKnownScope(scope);
  const item = document.createElement("li");
  const label = document.createElement("label");
  const box = document.createElement("input");
  box.type = "checkbox";
  box.name = "scope";
  box.value = scope;
  box.checked = known || fromResource;
  const text = document.createElement("span");
  const name = document.createElement("code");
  name.textContent = scope;
  text.append(name, ` ${scopeWords(scope, resourceHost)}`);
  if (!known && fromResource) {
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = "A permission the resource itself lists; the app named none.";
    text.append(note);
  } else if (!known) {
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = "Not a permission this server knows; left unticked. Tick it only if you trust the app.";
    text.append(note);
  }
  label.append(box, text);
  item.append(label);
  return item;
}

/** The server's word on the request (only it holds the key that signed it); null when it
 * cannot be asked, and then the approve step's own check is what counts. */
async function checkWithServer(token: string): Promise<RequestCheckAnswer | null> {
  try {
    const answer = await fetch(REQUEST_CHECK_PATH, {
      method: "POST",
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      body: new URLSearchParams({ request: token }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await answer.json()) as Partial<{ usable: unknown; expires_in: unknown; problem: unknown }>;
    if (!answer.ok) return null;
    if (body.usable === true && typeof body.expires_in === "number")
      return { usable: true, expires_in: body.expires_in };
    if (body.usable === false && typeof body.problem === "string" && Object.hasOwn(REQUEST_PROBLEMS, body.problem)) {
      return { usable: false, problem: body.problem as RequestProblem };
    }
    return null;
  } catch {
    return null;
  }
}

/** Instead of the form: what is wrong with the request and what to do. `backTo` is the app's
 * address, given only for a request the server signed. */
function showRequestProblem(problem: RequestProblem, backTo?: string): void {
  const password = byId<HTMLInputElement>("password");
  password.value = "";
  byId("consent").hidden = true;
  byId("problem-title").textContent = REQUEST_PROBLEMS[problem].title;
  byId("problem-said").textContent = REQUEST_PROBLEMS[problem].said;
  byId("start-again").textContent = START_AGAIN;
  if (backTo && /^https?:\/\//i.test(backTo)) {
    const link = byId<HTMLAnchorElement>("problem-link");
    link.href = backTo;
    link.textContent = `Back to ${hostOf(backTo)}`;
    byId("problem-back").hidden = false;
  }
  byId("request-problem").hidden = false;
  document.title = REQUEST_PROBLEMS[problem].title;
}

/** The logo's address on this origin, if the request names one. */
function ownLogo(path: string | undefined): URL | null {
  try {
    return path ? new URL(path, location.origin) : null;
  } catch {
    return null;
  }
}

async function show(): Promise<void> {
  const fragment = readSignInFragment(location.hash);
  const token = fragment.request;
  if (!token) {
    byId("no-request").hidden = false;
    return;
  }
  // A cut-short address is plain from here; telling a changed request from an expired one
  // takes the server. The form is shown only once the request is known to be usable.
  if (!readRequestShape(token)) return showRequestProblem("incomplete");
  const checking = setTimeout(() => (byId("checking").hidden = false), 400);
  const verdict = await checkWithServer(token);
  clearTimeout(checking);
  byId("checking").hidden = true;
  const request = shownRequest(token);
  if (verdict?.usable === false)
    return showRequestProblem(verdict.problem, verdict.problem === "expired" ? request?.clientId : undefined);
  if (!request) return showRequestProblem("altered");

  byId<HTMLInputElement>("request").value = token;
  const clientHost = hostOf(request.clientId);
  byId("client-name").textContent = request.client.name ?? clientHost;
  // The host is what a person can check (CIMD draft 8.5); the full client_id too (spec 6.1).
  byId("client-domain").textContent = clientHost;
  byId("client-host").textContent = request.clientId;
  if (request.resource) {
    // The host is what a person can check, as for the app: on a line of its own, before the
    // full address (whose start could be made to look like the owner's own site).
    byId("resource-host").textContent = request.resourceHost ?? hostOf(request.resource);
    byId("resource").textContent = request.resource;
    byId("resource-note").hidden = false;
  }
  document.title = `Sign in to ${request.client.name ?? clientHost}`;
  if (request.client.name) byId("client-claim").hidden = false;

  // Only this server's own copy of the logo (GET /auth/logo): the page loads nothing from the app's host.
  const logo = ownLogo(request.client.logoUri);
  if (
    logo &&
    /^https?:\/\//i.test(logo.href) &&
    logo.origin === location.origin &&
    logo.pathname === CLIENT_LOGO_PATH
  ) {
    const img = byId<HTMLImageElement>("client-logo");
    img.src = logo.href;
    img.hidden = false;
    img.addEventListener("error", () => (img.hidden = true));
  }

  if (request.client.loopbackOnly === true) {
    // The whole host, from the client_id itself: the shown address may be cut short.
    byId("loopback-host").textContent = clientHost;
    byId("loopback-note").hidden = false;
  }

  // Shown whenever it leaves the app's own address: another site, or another path on its host.
  if (!isUnderClientPath(request.clientId, request.redirectUri)) {
    byId("redirect-host").textContent = request.redirectUri;
    byId("redirect-note").hidden = false;
  }
  if (request.client.registered === true) showRegisteredApp(request.client.name, request.redirectUri);
  if (request.meMismatch) {
    byId("me-hint").textContent = `as ${request.meMismatch}`;
    byId("me-note").hidden = false;
  }

  if (request.scopes.length > 0) {
    const resourceHost = request.resource ? (request.resourceHost ?? hostOf(request.resource)) : undefined;
    byId("scope-list").replaceChildren(
      ...request.scopes.map((scope) => scopeItem(scope, request.defaultScopes?.includes(scope) ?? false, resourceHost)),
    );
    byId("scopes").hidden = false;
    byId("identity-only").hidden = true;
  }

  if (fragment.problem) showError(SIGN_IN_PROBLEMS[fragment.problem]);
  else if (fragment.unknownProblem) showError("Something went wrong. Please try again.");

  allowFormTo(request.redirectUri);
  byId("consent").hidden = false;
  offerSignInMethods(request.offer);
  // It expires while the page is open: say so then, rather than after the password.
  if (verdict?.usable) {
    setTimeout(() => {
      showRequestProblem("expired", request.clientId);
      byId("problem-title").focus();
    }, verdict.expires_in * 1000);
  }
}

let approveGate: ApproveGate | undefined;

/** What the server signed into the request: a live session needs no password for an app
 * approved before; a passkey may replace the password. Approve is never focused for the
 * person (a held Enter key must not press it) and turns on only once they act on this page. */
function offerSignInMethods(offer: SignInOffer): void {
  approveGate = guardApprove(
    byId<HTMLFormElement>("consent"),
    byId<HTMLButtonElement>("approve"),
    byId<HTMLButtonElement>("passkey-button"),
    byId<HTMLInputElement>("password"),
    byId("approve-hint"),
    byId("enter-hint"),
    byId("wait-hint"),
  );
  const password = byId<HTMLInputElement>("password");
  if (offer.session) {
    byId("password-field").hidden = true;
    byId("remember-field").hidden = true;
    password.required = false;
    byId("session-note").hidden = false;
    return;
  }
  if (offer.signedIn) {
    // Signed in already, but this app (or what it asks now) needs the password or a passkey.
    byId("remember-field").hidden = true;
    byId(CONFIRM_NOTES[offer.signedIn]).hidden = false;
  }
  if (!offer.password) {
    byId("password-field").hidden = true;
    password.required = false;
    byId("approve").hidden = true;
  }
  if (offer.passkey && browserSupportsWebAuthn()) {
    byId("passkey-actions").hidden = false;
    byId("passkey-button").addEventListener("click", () => void approveWithPasskey());
  } else if (!offer.password) {
    showError(
      "Only passkeys sign in here, and this browser cannot use them. Open this page in a browser that supports passkeys.",
    );
  }
  if (!byId("password-field").hidden) password.focus();
}

function showError(message: string): void {
  const box = byId("error");
  box.textContent = message;
  box.hidden = false;
}

/** Asks the server for a challenge, lets the browser sign it, and sends the answer with the form. */
async function approveWithPasskey(): Promise<void> {
  const button = byId<HTMLButtonElement>("passkey-button");
  button.disabled = true;
  try {
    const answer = await fetch(`${PASSKEYS_API}/authentication-options`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    const body = (await answer.json()) as {
      options?: Parameters<typeof startAuthentication>[0]["optionsJSON"];
      ticket?: string;
      error_description?: string;
    };
    if (!answer.ok || !body.options || !body.ticket)
      throw new Error(body.error_description ?? "The server could not start a passkey sign-in.");
    const response = await startAuthentication({ optionsJSON: body.options });
    byId<HTMLInputElement>("passkey-ticket").value = body.ticket;
    byId<HTMLInputElement>("passkey-response").value = JSON.stringify(response);
    byId<HTMLInputElement>("password").required = false;
    approveGate?.open();
    byId<HTMLFormElement>("consent").requestSubmit(byId<HTMLButtonElement>("approve"));
  } catch (error) {
    button.disabled = false;
    const cancelled = error instanceof Error && error.name === "NotAllowedError";
    showError(
      cancelled
        ? "The passkey sign-in was cancelled."
        : error instanceof Error
          ? error.message
          : "The passkey sign-in failed.",
    );
  }
}

// The owner's photo is baked in at build time; hide it rather than show a broken image.
for (const img of document.querySelectorAll<HTMLImageElement>(".owner img")) {
  img.addEventListener("error", () => (img.hidden = true));
  if (img.complete && img.naturalWidth === 0) img.hidden = true;
}

if (!shownElsewhere("sign-in page")) {
  void show();
  window.addEventListener("hashchange", () => location.reload());
}

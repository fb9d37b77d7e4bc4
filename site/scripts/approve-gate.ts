// Approve must be a click or a key press the owner meant for it. Another site can open this
// page under the person's pointer (the first click of a double-click lands on its page, which
// then opens this one, and the second lands here) or while a key is held down (Enter's
// repeats). So Approve is never focused for them, and it stays disabled until the page has
// been visible (and focused) for a moment and then something new happens on it: the pointer
// moves, a press ends, or a key is pressed afresh (never a held key's repeat). The press or
// key that turns it on does not itself approve. Once the form is on its way, its buttons are
// disabled, so a second click cannot send it again.

/** How long the page must have been visible and focused before an interaction counts. */
const SETTLE_MS = 600;

export interface ApproveGate {
  /** Turns Approve on for a submission the script makes itself, after a passkey ceremony
   * (which the person has just gone through deliberately). */
  open(): void;
}

export function guardApprove(form: HTMLFormElement, approve: HTMLButtonElement, hint: HTMLElement): ApproveGate {
  let since = Infinity;
  let armed = false;
  let pressed = false;
  let inFlight = false;
  let hintTimer: number | undefined;

  const settled = (): boolean => document.visibilityState === "visible" && document.hasFocus() && performance.now() - since >= SETTLE_MS;

  function open(): void {
    armed = true;
    approve.disabled = false;
    hint.hidden = true;
    window.clearTimeout(hintTimer);
  }

  /** Disabled again, and the moment starts over (on load, and whenever the page was hidden,
   * lost focus or came back from the back/forward cache). */
  function lock(): void {
    armed = false;
    pressed = false;
    approve.disabled = true;
    hint.hidden = true;
    window.clearTimeout(hintTimer);
    since = performance.now();
    // If nothing has turned Approve on by the time anything could, say what will.
    hintTimer = window.setTimeout(() => (hint.hidden = armed || approve.hidden), SETTLE_MS);
  }

  /** After the event that counts has been handled, so that it cannot click Approve itself. */
  function openAfterThisEvent(): void {
    window.setTimeout(() => {
      if (settled() && !inFlight) open();
    }, 0);
  }

  // Listened to on the window, in the capture phase: a disabled button receives no clicks,
  // but the pointer events over it still pass through here.
  const listen = <K extends keyof WindowEventMap>(type: K, handler: (event: WindowEventMap[K]) => void): void => window.addEventListener(type, handler, { capture: true });
  listen("pointermove", (event) => {
    // A pointer that really moved (a page appearing under a still pointer reports no movement).
    if (!armed && !inFlight && event.isTrusted && (event.movementX !== 0 || event.movementY !== 0) && settled()) open();
  });
  listen("pointerdown", (event) => {
    pressed = event.isTrusted && settled();
  });
  for (const type of ["pointerup", "pointercancel"] as const) {
    listen(type, () => {
      if (pressed) openAfterThisEvent();
      pressed = false;
    });
  }
  listen("keydown", (event) => {
    if (!armed && event.isTrusted && !event.repeat && settled()) openAfterThisEvent();
  });

  document.addEventListener("visibilitychange", lock);
  window.addEventListener("blur", lock);
  window.addEventListener("focus", lock);
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    inFlight = false;
    for (const button of form.querySelectorAll("button")) button.disabled = false;
    lock();
  });

  form.addEventListener("submit", (event) => {
    if ((event.submitter === approve && !armed) || inFlight) {
      event.preventDefault();
      return;
    }
    inFlight = true;
    // Disabled only after the form has read the clicked button's name and value.
    window.setTimeout(() => form.querySelectorAll("button").forEach((button) => (button.disabled = true)), 0);
  });

  lock();
  return { open };
}

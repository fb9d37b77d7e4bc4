// Approve must be a click or a key press the owner meant for it. Another site can open this
// page under the person's pointer (the first click of a double-click lands on its page, which
// then opens this one, and the second lands here), ask for a storm of clicks at one spot (a
// "click as fast as you can" game) or for a held key (Enter's repeats). So Approve is never
// focused for them, and it stays disabled until the page has been visible (and focused) for a
// moment and then the person does something that no still pointer or held key does:
// - the pointer really moves, from somewhere other than Approve (a page appearing under a
//   still pointer reports no movement, and a hand resting on Approve's spot does not count);
// - a press begins somewhere other than Approve (a click storm at Approve's spot never arms);
// - a key is pressed afresh (never a held key's repeat).
// The press or key that turns it on does not itself approve, and a press at the very spot of
// the press that turned it on (nothing having moved) turns it off again. Once the form is on
// its way, its buttons are disabled, so a second click cannot send it again.

/** How long the page must have been visible and focused before an interaction counts. */
const SETTLE_MS = 600;

export interface ApproveGate {
  /** Turns Approve on for a submission the script makes itself, after a passkey ceremony
   * (which the person has just gone through deliberately). */
  open(): void;
}

interface Point {
  x: number;
  y: number;
}

const samePoint = (a: Point, b: Point): boolean => a.x === b.x && a.y === b.y;

export function guardApprove(form: HTMLFormElement, approve: HTMLButtonElement, hint: HTMLElement): ApproveGate {
  let since = Infinity;
  let armed = false;
  /** Where a trusted press began outside Approve on the settled page, until it ends. */
  let pressStart: Point | null = null;
  /** Where the press that turned Approve on began (null: turned on otherwise). */
  let armedAt: Point | null = null;
  /** Where the pointer was last seen on this page. */
  let lastPoint: Point | null = null;
  let inFlight = false;
  let hintTimer: number | undefined;

  const settled = (): boolean => document.visibilityState === "visible" && document.hasFocus() && performance.now() - since >= SETTLE_MS;

  function onApprove({ x, y }: Point): boolean {
    const box = approve.getBoundingClientRect();
    return !approve.hidden && x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
  }

  function open(at: Point | null = null): void {
    armed = true;
    armedAt = at;
    approve.disabled = false;
    hint.hidden = true;
    window.clearTimeout(hintTimer);
  }

  /** Disabled again, and the moment starts over (on load, and whenever the page was hidden,
   * lost focus or came back from the back/forward cache). */
  function lock(): void {
    armed = false;
    armedAt = null;
    pressStart = null;
    approve.disabled = true;
    hint.hidden = true;
    window.clearTimeout(hintTimer);
    since = performance.now();
    // If nothing has turned Approve on by the time anything could, say what will.
    hintTimer = window.setTimeout(() => (hint.hidden = armed || approve.hidden), SETTLE_MS);
  }

  /** After the event that counts has been handled, so that it cannot click Approve itself. */
  function openAfterThisEvent(at: Point | null): void {
    window.setTimeout(() => {
      if (settled() && !inFlight) open(at);
    }, 0);
  }

  // Listened to on the window, in the capture phase: a disabled button receives no clicks,
  // but the pointer events over it still pass through here.
  const listen = <K extends keyof WindowEventMap>(type: K, handler: (event: WindowEventMap[K]) => void): void => window.addEventListener(type, handler, { capture: true });
  listen("pointermove", (event) => {
    const to = { x: event.clientX, y: event.clientY };
    // Where it came from: the last position seen here, else what the browser reports.
    const movedFrom = lastPoint ?? (event.movementX !== 0 || event.movementY !== 0 ? { x: to.x - event.movementX, y: to.y - event.movementY } : null);
    lastPoint = to;
    if (armed || inFlight || !event.isTrusted || !settled()) return;
    if (movedFrom === null || samePoint(movedFrom, to) || onApprove(movedFrom)) return;
    open();
  });
  listen("pointerdown", (event) => {
    const at = { x: event.clientX, y: event.clientY };
    lastPoint = at;
    // The same spot as the press that turned Approve on, nothing having moved: a storm of
    // clicks at one spot (under which the page may have shifted), not a person reaching for it.
    if (armed && armedAt !== null && samePoint(armedAt, at) && onApprove(at)) lock();
    pressStart = event.isTrusted && settled() && !onApprove(at) ? at : null;
  });
  for (const type of ["pointerup", "pointercancel"] as const) {
    listen(type, () => {
      if (pressStart !== null && !armed) openAfterThisEvent(pressStart);
      pressStart = null;
    });
  }
  listen("keydown", (event) => {
    if (!armed && event.isTrusted && !event.repeat && settled()) openAfterThisEvent(null);
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

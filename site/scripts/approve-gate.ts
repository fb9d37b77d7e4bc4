// Approve (and "Approve with a passkey", which approves as surely) must be a click or a key
// press the owner meant for it. Another site can open this page under the person's pointer
// (the first click of a double-click lands on its page, which then opens this one, and the
// second lands here), ask for a storm of clicks at one spot (a "click as fast as you can" game),
// for a held key (Enter's repeats) or for a few keys in a row. So the buttons are never focused
// for them, and they stay off (aria-disabled: a press on them does nothing, yet a keyboard can
// reach them) until the page has been visible and focused for a moment and the person then does
// something that no still pointer, storm or stray key does:
// - the pointer really moves, from somewhere other than the buttons, or a press begins
//   somewhere other than them (gate-pointer.ts);
// - a button reached with a fresh Tab is pressed from the keyboard (gate-keys.ts);
// - and for Approve alone, the password field holds what the person typed into it
//   (typed-password.ts): Approve then sends that password, which is its own proof.
// The press or key that turns them on never approves. The browser's Enter-to-submit never
// presses Approve (gate-keys.ts). Once the form is on its way its buttons are disabled, so a
// second click cannot send it again.
import { watchKeys } from "./gate-keys.ts";
import { watchPointer } from "./gate-pointer.ts";
import { watchTypedPassword } from "./typed-password.ts";

/** How long the page must have been visible and focused before an interaction counts. */
const SETTLE_MS = 600;

export interface Point {
  x: number;
  y: number;
}

/** What the pointer and key rules see of the gate. */
export interface Gate {
  settled(): boolean;
  armed(): boolean;
  /** Where the press that turned the buttons on began (null: turned on otherwise). */
  armedAt(): Point | null;
  /** The shown button under this point, if any. */
  buttonAt(point: Point): HTMLButtonElement | null;
  guarded(target: EventTarget | null): HTMLButtonElement | null;
  open(at: Point | null): void;
  /** Turns the buttons on once the event being handled is over, so that it cannot press them. */
  openAfterThisEvent(at: Point | null): void;
  lock(): void;
}

export interface ApproveGate {
  /** Turns Approve on for a submission the script makes itself, after a passkey ceremony
   * (which the person has just gone through deliberately). */
  open(): void;
}

/** `hint` says what turns the buttons on; `enterHint`, why Enter did nothing over a password
 * filled in for the person; `waitHint`, why a press or key did nothing before the page settled
 * (a fast typist's Tab, a click as the page appears), until it settles and `hint` takes over. */
export function guardApprove(
  form: HTMLFormElement,
  approve: HTMLButtonElement,
  passkey: HTMLButtonElement,
  password: HTMLInputElement,
  hint: HTMLElement,
  enterHint: HTMLElement,
  waitHint: HTMLElement,
): ApproveGate {
  const buttons = [approve, passkey];
  let since = Infinity;
  let armed = false;
  let armedAt: Point | null = null;
  let inFlight = false;
  /** The buttons disabled while the form is on its way (not the form's disabled default button). */
  let sending: HTMLButtonElement[] = [];
  let hintTimer: number | undefined;

  /** Rendered (a button, or a parent of it, may be hidden). */
  const shown = (button: HTMLButtonElement): boolean => button.getClientRects().length > 0;
  const settled = (): boolean =>
    document.visibilityState === "visible" && document.hasFocus() && performance.now() - since >= SETTLE_MS;
  const typing = watchTypedPassword(password, () => render());
  const live = (button: HTMLButtonElement): boolean => armed || (button === approve && typing.typed());

  function render(): void {
    if (typing.typed()) enterHint.hidden = true;
    for (const button of buttons) {
      if (live(button)) button.removeAttribute("aria-disabled");
      else button.setAttribute("aria-disabled", "true");
    }
    if (!hint.hidden || !waitHint.hidden) showHint(!waitHint.hidden);
  }

  /** Says what turns the buttons on, while a shown one is off; `early`: for something the person
   * did, which before the page settled says why nothing can turn them on yet (and says what will
   * once it has). */
  function showHint(early = false): void {
    const off = buttons.some((button) => shown(button) && !live(button));
    const waiting = off && early && !settled();
    waitHint.hidden = !waiting;
    hint.hidden = !off || waiting;
    if (!waiting) return;
    window.clearTimeout(hintTimer);
    hintTimer = window.setTimeout(showHint, Math.max(0, SETTLE_MS - (performance.now() - since)));
  }

  function open(at: Point | null = null): void {
    armed = true;
    armedAt = at;
    window.clearTimeout(hintTimer);
    render();
  }

  /** Off again, and the moment starts over (on load, and whenever the page was hidden, lost
   * focus or came back from the back/forward cache). */
  function lock(): void {
    armed = false;
    armedAt = null;
    hint.hidden = true;
    enterHint.hidden = true;
    waitHint.hidden = true;
    render();
    window.clearTimeout(hintTimer);
    since = performance.now();
    // If nothing has turned them on by the time anything could, say what will.
    hintTimer = window.setTimeout(() => showHint(), SETTLE_MS);
  }

  const gate: Gate = {
    settled,
    armed: () => armed,
    armedAt: () => armedAt,
    buttonAt: ({ x, y }) =>
      buttons.find((button) => {
        const box = button.getBoundingClientRect();
        return shown(button) && x >= box.left && x <= box.right && y >= box.top && y <= box.bottom;
      }) ?? null,
    guarded: (target) =>
      buttons.find((button) => button === target || (target instanceof Node && button.contains(target))) ?? null,
    open,
    openAfterThisEvent: (at) =>
      void window.setTimeout(() => {
        if (settled() && !inFlight) open(at);
      }, 0),
    lock,
  };
  watchPointer(gate);
  const keys = watchKeys(gate, form, approve, password, typing, {
    untypedEnter: () => {
      enterHint.hidden = false;
      showHint(true);
    },
    early: () => showHint(true),
  });

  // A press on a button that is off does nothing (not even the form's own checks), unless it
  // is the keyboard's press on a button a fresh Tab reached: that turns them on.
  window.addEventListener(
    "click",
    (event) => {
      const button = gate.guarded(event.target);
      if (!button) return;
      const keyboard = event.isTrusted && event.detail === 0;
      if (keyboard && keys.repeating()) {
        // A held key's repeats press nothing, whatever the state.
        event.preventDefault();
        event.stopPropagation();
        return;
      }
      if (live(button)) return;
      event.preventDefault();
      event.stopPropagation();
      if (keyboard && keys.reachedByTab(button) && settled()) gate.openAfterThisEvent(null);
      else showHint(true);
    },
    { capture: true },
  );

  document.addEventListener("visibilitychange", lock);
  window.addEventListener("blur", lock);
  window.addEventListener("focus", lock);
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    inFlight = false;
    // The passkey button too, which its ceremony had disabled before the form was sent.
    for (const button of [...sending, passkey]) button.disabled = false;
    lock();
  });

  form.addEventListener("submit", (event) => {
    if ((event.submitter === approve && !live(approve)) || inFlight) {
      event.preventDefault();
      return;
    }
    inFlight = true;
    sending = [...form.querySelectorAll("button")].filter((button) => !button.disabled);
    // Disabled only after the form has read the clicked button's name and value.
    window.setTimeout(() => sending.forEach((button) => (button.disabled = true)), 0);
  });

  lock();
  return { open: () => open() };
}

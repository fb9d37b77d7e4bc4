// The approve gate's key rules (approve-gate.ts). A key pressed anywhere proves nothing: a page
// can ask for "Tab, Enter" or for Enter twice as easily as for one key. So:
// - Enter in a field never presses Approve. The browser's own Enter-to-submit clicks the
//   form's first enabled submit button (from a checkbox even past a disabled one), so it is
//   stopped here for every field; Enter in the password field sends the form with Approve only
//   when the person typed that password here (typed-password.ts), never after a password
//   manager filled it in.
// - A button the focus reached by a fresh Tab on the settled page is turned on by the keyboard's
//   press on it (Enter, Space, or a screen reader's press), which itself presses nothing: the
//   next press does.
// - A held key's repeats press nothing.
import type { Gate } from "./approve-gate.ts";
import type { TypedPassword } from "./typed-password.ts";

export interface GateKeys {
  /** The focus is on this button, and a fresh Tab on the settled page put it there. */
  reachedByTab(button: HTMLButtonElement): boolean;
  /** A key is held down and repeating. */
  repeating(): boolean;
}

/** What the page says why a key did nothing: `untypedEnter`, Enter in the password field over a
 * password not typed there; `early`, a Tab onto a button before the page settled. */
interface KeyWords {
  untypedEnter(): void;
  early(): void;
}

export function watchKeys(
  gate: Gate,
  form: HTMLFormElement,
  approve: HTMLButtonElement,
  password: HTMLInputElement,
  typing: TypedPassword,
  words: KeyWords,
): GateKeys {
  let tabbing = false;
  /** A fresh Tab before the page settled: the button it reaches is not reached by Tab. */
  let early = false;
  let reached: HTMLButtonElement | null = null;
  let repeat = false;

  const listen = <K extends keyof WindowEventMap>(type: K, handler: (event: WindowEventMap[K]) => void): void =>
    window.addEventListener(type, handler, { capture: true });
  listen("keydown", (event) => {
    const fresh = event.isTrusted && !event.repeat;
    repeat = event.repeat;
    early = fresh && event.key === "Tab" && !gate.settled();
    tabbing = fresh && event.key === "Tab" && gate.settled();
    if (event.key !== "Enter" || !(event.target instanceof HTMLInputElement)) return;
    event.preventDefault();
    if (!fresh || event.isComposing || event.target !== password || password.value === "") return;
    if (typing.typed()) form.requestSubmit(approve);
    else words.untypedEnter();
  });
  listen("keyup", () => {
    repeat = false;
    tabbing = false;
    early = false;
  });
  // Moving the focus with Tab fires focusin within the Tab's own keydown.
  listen("focusin", (event) => {
    reached = tabbing ? gate.guarded(event.target) : null;
    if (early && gate.guarded(event.target)) words.early();
    tabbing = false;
    early = false;
  });
  return { reachedByTab: (button) => reached === button && document.activeElement === button, repeating: () => repeat };
}

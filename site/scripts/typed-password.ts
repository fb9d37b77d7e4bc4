// Whether the password field holds only what the person typed into it on this page, key by
// key. A password manager that fills the field (on load or from its menu), an extension that
// writes into it and a script all fire input events too, some of them trusted; none of them
// comes from a fresh key press in the field. So a change counts as typed only when a trusted,
// fresh (never repeated) key press in the field made it, one character at a time (a manager's
// shortcut that writes the whole password at once is a fill, not typing) or by pasting or
// deleting. Anything else makes the field "not typed" until the person empties it or types
// over the whole of it: typing "a" then Backspace after a manager filled the field leaves the
// manager's password, which must not read as typed.

/** Input types a key press makes in a password field (a paste from the keyboard included). */
const KEY_MADE = /^(insertText|insertCompositionText|insertFromPaste|delete)/;

export interface TypedPassword {
  /** The field is not empty and every character in it was typed here. */
  typed(): boolean;
}

export function watchTypedPassword(field: HTMLInputElement, changed: () => void): TypedPassword {
  /** A fresh, trusted key press in the field whose change has not come yet. */
  let keyed = false;
  /** The value after the last change seen here: one that differs was made without an event. */
  let seen = field.value;
  let clean = true;

  field.addEventListener("keydown", (event) => (keyed = event.isTrusted && !event.repeat && event.key !== "Enter"));
  field.addEventListener("keyup", () => (keyed = false));
  field.addEventListener("input", (event) => {
    const value = field.value;
    const data = event instanceof InputEvent ? (event.data ?? "") : "";
    const byKey =
      keyed &&
      event.isTrusted &&
      event instanceof InputEvent &&
      KEY_MADE.test(event.inputType) &&
      (event.inputType !== "insertText" || [...data].length === 1);
    // A key adds at most what it typed: more means something else wrote in the field too.
    clean = value === "" || (byKey && ((clean && value.length - seen.length <= data.length) || value === data));
    keyed = false;
    seen = value;
    changed();
  });
  return { typed: () => clean && field.value !== "" && field.value === seen };
}

// Progress on a button while its work runs: the button says what is happening ("Signing in…"),
// cannot be pressed twice, and a polite live region says the same to screen readers. A greyed
// button alone does not tell anyone that something is under way.

/** Shows `label` on `button` (and in `status`) until the returned function is called, which
 * puts the button back as it was. `say` changes the words on the way (e.g. after a passkey). */
export function showProgress(
  button: HTMLButtonElement,
  status: HTMLElement,
  label: string,
): { say: (label: string) => void; done: () => void } {
  const idle = button.textContent;
  const form = button.form;
  const say = (words: string) => {
    button.textContent = words;
    status.textContent = words;
  };
  button.disabled = true;
  button.classList.add("busy");
  button.setAttribute("aria-disabled", "true");
  form?.setAttribute("aria-busy", "true");
  say(label);
  return {
    say,
    done() {
      button.textContent = idle;
      status.textContent = "";
      button.disabled = false;
      button.classList.remove("busy");
      button.removeAttribute("aria-disabled");
      form?.removeAttribute("aria-busy");
    },
  };
}

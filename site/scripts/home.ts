// The home page's "Copy the tags" button.
const button = document.querySelector<HTMLButtonElement>("button[data-copy]");
const status = document.getElementById("copy-status");
button?.addEventListener("click", async () => {
  const source = document.getElementById(button.dataset.copy ?? "");
  if (!source || !status) return;
  try {
    await navigator.clipboard.writeText(source.textContent ?? "");
    status.textContent = "Copied.";
  } catch {
    // Clipboard refused (insecure context, permissions): select the text for a manual copy.
    const range = document.createRange();
    range.selectNodeContents(source);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
    status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy.";
  }
});

// The sign-in page shows its password field, and the account page the console, only in a window
// of their own. Their headers say so (CSP frame-ancestors 'none' and X-Frame-Options: DENY
// against framing; Cross-Origin-Opener-Policy: same-origin, which cuts the handle of the window
// that opened them), but on a blog the blog's own header rules can replace those headers. So the
// page checks as well: in a frame (whether or not the frame may look at its parent), or with a
// handle to the window that opened it (which COOP would have cut), it removes its content and
// says so, with a link that opens it on its own.

/** The page is the top window, and no other window opened it keeping a handle. */
function onItsOwn(): boolean {
  try {
    return window.top === window.self && window.opener === null;
  } catch {
    return false;
  }
}

/** True when the page is shown inside another or held by its opener: its content is then
 * gone, in place of a short message. `what` names the page ("sign-in page"). */
export function shownElsewhere(what: string): boolean {
  if (onItsOwn()) return false;
  const title = document.createElement("h1");
  title.textContent = `Open the ${what} on its own`;
  const said = document.createElement("p");
  said.textContent = `This ${what} was opened inside another page, or by a window that could read what you type here, so it shows nothing.`;
  const link = document.createElement("a");
  link.href = location.href;
  link.target = "_blank";
  // Opened by this link, it has no handle back to anything.
  link.rel = "noopener noreferrer";
  link.className = "button";
  link.textContent = `Open the ${what} in a window of its own`;
  const linkLine = document.createElement("p");
  linkLine.append(link);
  const card = document.createElement("section");
  card.className = "card";
  card.append(title, said, linkLine);
  document.querySelector("main")?.replaceChildren(card);
  document.title = title.textContent;
  return true;
}

// The sign-in form's Content-Security-Policy form-action, written for the request the page
// shows. Chromium checks form-action on every redirect that follows the form's post, so it must
// allow where the approve step sends the browser (the app's redirect URI, for a code, a Deny or
// an error; this page again, with a problem) and where the app's own callback sends it on. No
// fixed header says that for every app: a native app's private-use scheme (com.example.app:)
// matches only a source naming that scheme ('*' matches web schemes only), and no source can
// name an IPv6 host ([::1]). So the page adds the policy in a meta element once it knows the
// request; a policy added later can only narrow what the page may do, never widen it.

/** Every request: this server (the approve step, and this page again), any https address (an
 * app's callback may send the browser on to another of its hosts), and `claude:`, where
 * claude.ai's callback sends Claude Desktop's sign-ins on (observed by a third party,
 * PrefectHQ/fastmcp#3369, 2026-03). */
const ALWAYS = ["'self'", "https:", "claude:"];

/** What the approve step may send the browser to, besides: the redirect URI's own origin when
 * it is http (a loopback port, exactly), all of http for [::1] (the one way to allow it), and a
 * private-use scheme by name. */
function redirectSource(redirectUri: string): string | null {
  try {
    const url = new URL(redirectUri);
    if (url.protocol === "http:") return url.hostname === "[::1]" ? "http:" : url.origin;
    return url.protocol === "https:" ? null : url.protocol;
  } catch {
    return null;
  }
}

export function allowFormTo(redirectUri: string): void {
  const extra = redirectSource(redirectUri);
  const policy = document.createElement("meta");
  policy.httpEquiv = "Content-Security-Policy";
  policy.content = `form-action ${[...ALWAYS, ...(extra ? [extra] : [])].join(" ")}`;
  document.head.append(policy);
}

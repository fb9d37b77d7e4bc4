// What a local server prints once it is ready (`npm start`, `npx netlify-indieauth dev`): a
// sign-in by hand for its own address, ready to paste. The client is a loopback address, which
// IndieAuth accepts without publishing anything; the PKCE pair is RFC 7636's example (appendix B),
// so the verifier in the curl command matches the challenge in the URL.
export const LOOPBACK_CLIENT = "http://127.0.0.1:3000/";
export const LOOPBACK_REDIRECT = "http://127.0.0.1:3000/callback";
export const CODE_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CODE_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
/** Where the pasted code goes in the printed command. */
export const CODE_PLACEHOLDER = "PASTE_THE_CODE";

/** The authorization request to open in a browser, for the server at `baseUrl` (no trailing slash). */
export function signInUrl(baseUrl: string): string {
  const query = [
    "response_type=code",
    `client_id=${LOOPBACK_CLIENT}`,
    `redirect_uri=${LOOPBACK_REDIRECT}`,
    "state=abc",
    `code_challenge=${CODE_CHALLENGE}`,
    "code_challenge_method=S256",
    "scope=profile+create",
  ];
  return `${baseUrl}/auth?${query.join("&")}`;
}

/** The curl command that redeems the code at the token endpoint (so the app shows on the account page). */
export function redeemCommand(baseUrl: string): string {
  return [
    `curl -s ${baseUrl}/token -d grant_type=authorization_code -d code=${CODE_PLACEHOLDER} \\`,
    `  -d client_id=${LOOPBACK_CLIENT} -d redirect_uri=${LOOPBACK_REDIRECT} \\`,
    `  -d code_verifier=${CODE_VERIFIER}`,
  ].join("\n");
}

/** The lines printed when the server at `baseUrl` is ready; `listening`: who can reach it. */
export function readyMessage(baseUrl: string, listening?: string, stop = "Ctrl+C stops it"): string {
  return [
    "",
    `Ready: ${baseUrl}/  (${stop})`,
    ...(listening ? [listening] : []),
    "",
    "Sign in by hand: open this in your browser, enter your password and Approve.",
    `  ${signInUrl(baseUrl)}`,
    `The browser then goes to ${LOOPBACK_REDIRECT}?code=... (nothing listens there: the code is in the`,
    "address bar). Within ten minutes, redeem it for an access token:",
    redeemCommand(baseUrl)
      .split("\n")
      .map((line) => `  ${line}`)
      .join("\n"),
    `The app then appears on your account page: ${baseUrl}/indieauth/account/`,
    "",
  ].join("\n");
}

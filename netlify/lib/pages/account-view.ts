// What the owner console's API answers: shared by the `account` endpoint, which builds these
// from the store, and the console page's script, which shows them (always as text).

export interface AppView {
  /** The app's id (its client_id's hash): what Revoke sends back; revokes every grant it holds. */
  id: string;
  clientId: string;
  /** The app's own claims from its client information; may be absent. */
  name?: string;
  logoUri?: string;
  /** What it holds now: every scope of its live grants, each once. */
  scopes: string[];
  /** How many of its live grants hold each of those scopes. */
  scopeGrants: Record<string, number>;
  /** Its live grants hold more distinct scopes than a summary keeps (64): not all are listed. */
  moreScopes?: true;
  createdAt: number;
  /** The last time one of its tokens was used (introspection, userinfo or refresh). */
  lastUsedAt: number;
  /** The end of the day its last grant expires (unless refreshed). */
  expiresAt: number;
  /** Its live grants (a device or a connection each): a grant expiring later today counts. */
  grants: number;
}

type SignInMethod = "password" | "passkey" | "session";

export interface DeviceView {
  /** The session's id: what Sign out sends back. */
  id: string;
  /** The session this request came with. */
  current: boolean;
  /** Browser and system, from the User-Agent at sign-in ("Chrome on Linux"). */
  label: string;
  ip: string;
  method: Exclude<SignInMethod, "session">;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  /** Kept after the browser closes ("Keep me signed in"), or only until it does. */
  persistent: boolean;
}

export interface PasskeyView {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  /** Synced by the platform (iCloud Keychain, Google Password Manager...). */
  backedUp: boolean;
}

export interface SignInEventView {
  at: number;
  ip: string;
  /** "authorization": the sign-in page of an app; "account": the account page. */
  where: "authorization" | "account";
  clientId?: string;
  method: SignInMethod;
  outcome: "success" | "failure";
  /** Why it failed, in words. */
  reason?: string;
  /** On the newest listed failure of an hour whose slots filled up: how many failures came
   * after it that hour without a record of their own (the reason says so in words too). */
  unlisted?: number;
  /** On the same event: how many attempts the guessing limit refused that hour (held back by
   * its failures) before anything was checked; counted up to 1,000 an hour. */
  refused?: number;
}

export interface AccountOverview {
  me: string;
  /** False when PASSWORD_LOGIN=off and a passkey exists: only passkeys sign in. */
  passwordLogin: boolean;
  /** True where the server shares the blog's origin (the plugin on the blog's own host): revoking
   * apps and signing other devices out take the password or a passkey again, like passkey changes. */
  confirmChanges: boolean;
  apps: AppView[];
  /** Apps holding tokens beyond those listed (listed: the first 20 read). */
  moreApps?: number;
  /** Whether older history exists than `events` shows (GET the API's /history?before=...). */
  moreEvents?: string;
  devices: DeviceView[];
  passkeys: PasskeyView[];
  events: SignInEventView[];
}

/** GET /indieauth/api/account/alerts: whether alerts are on (NOTIFY_URL), and to which host in
 * which shape; never the URL, which is a secret of its own. */
export type AlertsView = { on: false } | { on: true; host: string; format: string };

/** The 401 answer of the API without a live session: what the sign-in form should offer. */
export interface LoginRequiredView {
  error: "login_required";
  error_description: string;
  signIn: { password: boolean; passkey: boolean };
}

/** GET /indieauth/api/account/session: what the account page shows when it opens. Always 200,
 * so that a signed-out visit logs no failed request in the browser's console; the API's other
 * calls keep answering 401 login_required without a session. */
export type AccountSessionView =
  { signedIn: true; account: AccountOverview } | { signedIn: false; signIn: LoginRequiredView["signIn"] };

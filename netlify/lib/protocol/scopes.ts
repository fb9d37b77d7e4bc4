// Scopes: parsing (RFC 6749 3.3) and the plain descriptions shown on the sign-in page.

/** The scopes this server knows, with what they let an app do. Unknown scopes can still be
 * granted, but the sign-in page leaves them unticked. */
export const KNOWN_SCOPES: Readonly<Record<string, string>> = {
  profile: "See your name, photo and website",
  email: "See your e-mail address",
  create: "Create new posts on your site",
  // Micropub's older name for create, which older clients still ask for.
  post: "Create posts",
  draft: "Create posts as drafts only",
  update: "Edit your existing posts",
  delete: "Delete your posts",
  undelete: "Restore deleted posts",
  media: "Upload files to your media endpoint",
  read: "Read your feeds and channels",
  follow: "Follow and unfollow feeds for you",
  mute: "Mute people for you",
  block: "Block people for you",
  channels: "Manage your reader channels",
  // Not a permission at a resource but a wish of the app's (OIDC Core 11): see OFFLINE_ACCESS.
  offline_access: "Stay connected: renew access without asking you again",
};

/** Asked for by MCP hosts (when the metadata lists it) to get a refresh token. A request that
 * names it and has it unticked gets no refresh token; a request that never names it (IndieAuth
 * clients, which expect one) still gets one (docs/endpoints.md). */
export const OFFLINE_ACCESS = "offline_access";

/** The scopes that grant access at a resource: all but offline_access. */
export function accessScopes(scopes: readonly string[]): string[] {
  return scopes.filter((scope) => scope !== OFFLINE_ACCESS);
}

/** What the sign-in page ticks by default: the scopes this server knows, and those the
 * resource's own metadata listed as its default (which it may name as it likes). */
export function tickedByDefault(request: {
  scopes: readonly string[];
  defaultScopes?: readonly string[] | undefined;
}): string[] {
  return request.scopes.filter((scope) => isKnownScope(scope) || (request.defaultScopes?.includes(scope) ?? false));
}

/** Older names of scopes, each with its current name: one permission under two names. */
const LEGACY_NAMES: Readonly<Record<string, string>> = { post: "create" };

/** What the metadata advertises: the current names (an older one is understood, not offered). */
export const SUPPORTED_SCOPES = Object.keys(KNOWN_SCOPES).filter((scope) => !Object.hasOwn(LEGACY_NAMES, scope));

/** scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

type ScopeParse = { ok: true; scopes: string[] } | { ok: false; reason: string };

/** Splits on spaces, drops duplicates, refuses malformed tokens, and drops `email` without
 * `profile` (e-mail is part of the profile; alone it means nothing). */
export function parseScope(raw: string | null): ScopeParse {
  if (raw === null) return { ok: true, scopes: [] };
  const tokens = raw.split(" ").filter((t) => t !== "");
  if (tokens.length > 32) return { ok: false, reason: "too many scopes requested" };
  const bad = tokens.find((t) => !SCOPE_TOKEN.test(t));
  if (bad !== undefined) return { ok: false, reason: "scope contains a malformed scope name" };
  const scopes = [...new Set(tokens)];
  return { ok: true, scopes: scopes.includes("profile") ? scopes : scopes.filter((s) => s !== "email") };
}

export function isKnownScope(scope: string): boolean {
  return Object.hasOwn(KNOWN_SCOPES, scope);
}

/** The scopes with the current name beside each older one: a token granted `post` says
 * `post create`, so that a Micropub endpoint checking the name the client asked for, and one
 * checking the current name, both let it in. The same permission, not a wider one. */
function withCurrentNames(scopes: readonly string[]): string[] {
  const named = [...scopes];
  for (const [legacy, current] of Object.entries(LEGACY_NAMES)) {
    if (named.includes(legacy) && !named.includes(current)) named.splice(named.indexOf(legacy) + 1, 0, current);
  }
  return named;
}

/** The scopes the owner ticked, limited to those requested and kept in the requested order
 * (with the current name beside an older one). */
export function grantedScopes(requested: readonly string[], ticked: readonly string[]): string[] {
  const tickedSet = new Set(ticked);
  const granted = withCurrentNames(requested.filter((s) => tickedSet.has(s)));
  return granted.includes("profile") ? granted : granted.filter((s) => s !== "email");
}

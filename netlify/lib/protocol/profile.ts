// The profile information a code or token may carry (spec 5.3.4): `profile` gives name, url
// and photo; `email` adds the e-mail address.
import type { Profile } from "../platform/config.ts";

interface ProfileInfo {
  name?: string;
  url?: string;
  photo?: string;
  email?: string;
}

export function profileFor(scopes: readonly string[], profile: Profile): ProfileInfo | undefined {
  if (!scopes.includes("profile")) return undefined;
  const info: ProfileInfo = {};
  if (profile.name) info.name = profile.name;
  info.url = profile.url;
  if (profile.photo) info.photo = profile.photo;
  if (scopes.includes("email") && profile.email) info.email = profile.email;
  return info;
}

// What the sign-in page and the owner's console show of an app: its own claims, all optional
// and never trusted (shown as text only).

export interface ClientDisplay {
  name?: string;
  logoUri?: string;
  /** The app's home page, when it names one. */
  uri?: string;
}

/** Only the fields shown, and only those that are set. */
export function clientDisplay(from: ClientDisplay): ClientDisplay {
  const display: ClientDisplay = {};
  if (from.name) display.name = from.name;
  if (from.logoUri) display.logoUri = from.logoUri;
  if (from.uri) display.uri = from.uri;
  return display;
}

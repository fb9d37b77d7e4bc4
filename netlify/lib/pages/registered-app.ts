// What the sign-in page says of an app that registered itself (POST /register). Its client_id is
// an address on this server, which tells the owner nothing, and its name is its own claim: what
// counts is where the answer goes (MCP: the server MUST show the redirect URI's host), said on a
// line of its own, and what that place is.
import { redirectKindOf } from "../core/redirect-kind.ts";
import { urlOf } from "../core/urls.ts";

interface RegisteredAppWords {
  /** The heading's name for it: its registered name in quotes, or what it is. */
  heading: string;
  /** That it named itself, plainly. */
  claim: string;
  /** Where the answer goes: a host (with its port), or an app link's scheme and authority. */
  target: string;
  /** What that place is, and who else could be there. */
  means: string;
}

export function registeredAppWords(name: string | undefined, redirectUri: string): RegisteredAppWords {
  const heading = name === undefined ? "an app that registered itself" : `"${name}"`;
  const claim =
    name === undefined
      ? "This app registered itself here, without a name."
      : `This app registered itself as "${name}"; this name is not verified.`;
  const url = urlOf(redirectUri);
  if (!url) return { heading, claim, target: redirectUri.slice(0, 80), means: "" };
  const kind = redirectKindOf(url);
  if (kind === "loopback") {
    return {
      heading,
      claim,
      target: `${url.host}, on this computer`,
      means:
        "It receives this sign-in at a local address on this computer, and any program there could receive it instead.",
    };
  }
  if (kind === "app") {
    return {
      heading,
      claim,
      target: `${url.protocol}${url.host === "" ? "" : `//${url.host}`}`,
      means: "It receives this sign-in through an app link, which any app on this computer could claim.",
    };
  }
  return { heading, claim, target: url.host, means: "It receives this sign-in at that website." };
}

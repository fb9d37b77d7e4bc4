// How a client presents itself where it redeems or revokes (POST /token, POST /auth, /revoke).
// Clients are public: Basic credentials are accepted only as the request's own client_id with
// an empty password (golang.org/x/oauth2 sends them first), anything else refused before
// anything is consumed, so that a retry without them still finds the code unused. A non-empty
// client_secret is refused too. See docs/security.md ("Client credentials").
import type { Fields } from "../core/fields.ts";
import { InvalidClient } from "../errors.ts";

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;

/** RFC 6749 2.3.1: the user name is form-urlencoded before it goes into the header; null when
 * its percent-encoding is broken. */
function formUrlDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return null;
  }
}

/** The client_id a Basic credential names, or a refusal saying what is wrong with it. */
function basicClientId(credentials: string): string {
  const decoded = Buffer.from(credentials, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0)
    throw new InvalidClient("The Basic credentials are malformed: send client_id, a colon and an empty password.");
  if (decoded.slice(colon + 1) !== "") {
    throw new InvalidClient(
      "This server issues no client secrets: send client_id with an empty password, or no Authorization header.",
    );
  }
  const clientId = formUrlDecode(decoded.slice(0, colon));
  if (clientId === null || clientId === "") throw new InvalidClient("The Basic credentials name no client_id.");
  return clientId;
}

/** The request's form with the client as it presented itself: unchanged without a Basic
 * credential, with client_id filled in from an accepted one. Other Authorization schemes are
 * not client authentication and are left to the endpoints that read them. */
export function withClientCredentials<P extends string>(
  req: Request,
  form: Fields<P> & Fields<"client_id" | "client_secret">,
): Fields<P> {
  const header = req.headers.get("authorization");
  const basic = header !== null && /^Basic(\s|$)/i.test(header);
  // RFC 6749 5.2: a challenge only for a client that tried the Authorization header.
  if (form.getAll("client_secret").some((secret) => secret !== "")) {
    throw new InvalidClient(
      "This server issues no client secrets, so a client_secret cannot be checked: send client_id alone (the client is public), or a client_assertion if its metadata document declares private_key_jwt.",
      basic,
    );
  }
  if (header === null || !basic) return form;
  const match = BASIC.exec(header);
  if (!match) throw new InvalidClient("The Basic credentials are malformed.");
  const clientId = basicClientId(match[1]!);
  const inBody = form.getAll("client_id").filter((value) => value !== "");
  if (inBody.length > 1) throw new InvalidClient("client_id is given more than once.");
  if (inBody.length === 1 && inBody[0] !== clientId)
    throw new InvalidClient("The Basic credentials name another client than the body's client_id.");
  if (inBody.length === 1) return form;
  return {
    get: (name) => (name === "client_id" ? clientId : form.get(name)),
    getAll: (name) => (name === "client_id" ? [clientId] : form.getAll(name)),
  };
}

// The sign-in page for an app that registered itself (POST /register): instead of its client_id's
// host (this server's own), where it sends the answer, prominently; its name as its own claim.
// Set by the server in the signed request (client.registered); written with textContent only.
import { registeredAppWords } from "../../netlify/lib/pages/registered-app.ts";
import { byId } from "./dom.ts";

export function showRegisteredApp(name: string | undefined, redirectUri: string): void {
  const words = registeredAppWords(name, redirectUri);
  byId("client-name").textContent = words.heading;
  document.title = `Sign in to ${words.heading}`;
  // The client_id's lines name this server, and the usual notes would repeat or contradict this one.
  for (const id of ["client-domain", "client-host"]) byId(id).parentElement!.hidden = true;
  for (const id of ["client-claim", "redirect-note", "loopback-note"]) byId(id).hidden = true;
  byId("registered-target").textContent = words.target;
  byId("registered-claim").textContent = words.claim;
  byId("registered-means").textContent = words.means;
  byId("registered-note").hidden = false;
}

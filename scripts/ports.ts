// Ports and addresses for the local servers (`npm start`, `npx netlify-indieauth dev`): whether a
// port is free before anything is built, free ports for netlify-cli's inner servers, and the
// address they listen on (this machine only unless told: scripts/listen-host.mjs).
import { createServer, isIP } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** This machine only: what the local servers listen on unless told otherwise with --host. */
export const LOOPBACK = "127.0.0.1";
/** The variable that tells scripts/listen-host.mjs the address, inside netlify-cli. */
export const LISTEN_HOST_VARIABLE = "NETLIFY_INDIEAUTH_LISTEN_HOST";
const EVERY_INTERFACE = new Set(["0.0.0.0", "::"]);

/** An address given with --host: an IP address (0.0.0.0 or :: for every interface) or localhost. */
export function parseHost(raw: string | undefined): string | undefined {
  const host = raw?.trim() ?? "";
  if (host === "localhost") return LOOPBACK;
  return isIP(host) === 0 ? undefined : host;
}

/** The arguments that make netlify-cli's servers listen on `host` (node's own, before its script),
 * and the variable they read. */
export function listenOn(host: string): { nodeArgs: string[]; env: Record<string, string> } {
  const preload = pathToFileURL(join(import.meta.dirname, "listen-host.mjs")).href;
  return { nodeArgs: ["--import", preload], env: { [LISTEN_HOST_VARIABLE]: host } };
}

/** What the ready message says about who can reach the server. `hostFlag`: how to open it up. */
export function listeningNote(host: string, hostFlag: string): string {
  if (EVERY_INTERFACE.has(host))
    return `Listening on every network interface (${host}): other machines on your network can reach this server and its sign-in.`;
  if (host === LOOPBACK)
    return `Listening on ${LOOPBACK} only: nothing but this machine can reach it (${hostFlag} 0.0.0.0 opens it to your network).`;
  return `Listening on ${host} only.`;
}

/** Resolves true when nothing listens on the port, any address (netlify-cli binds them all). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", () => done(false));
    probe.listen(port, () => probe.close(() => done(true)));
  });
}

/** A port the system has just handed out as free. */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? done(address.port) : fail(new Error("no free port")),
      );
    });
  });
}

/** Two free ports for netlify-cli's static and functions servers, both other than `main`: the
 * main port is checked free but not yet bound, so the system may hand it out again. */
export async function innerPorts(main: number): Promise<[number, number]> {
  for (;;) {
    const [a, b] = await Promise.all([freePort(), freePort()]);
    if (a !== main && b !== main && a !== b) return [a, b];
  }
}

/** A port number as a person types it (1-65535), or undefined. */
export function parsePort(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d{1,5}$/.test(raw.trim())) return undefined;
  const port = Number(raw.trim());
  return port >= 1 && port <= 65535 ? port : undefined;
}

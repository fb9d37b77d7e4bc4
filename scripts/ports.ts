// Ports for the local servers (`npm start`, `npx netlify-indieauth dev`): whether one is free
// before anything is built, and free ports for netlify-cli's inner servers.
import { createServer } from "node:net";

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
      probe.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no free port"))));
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

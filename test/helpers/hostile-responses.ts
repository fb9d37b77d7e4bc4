// What a client's website can do to a fetcher, served by a test's local server: never answer,
// drip forever, stream without end, or send too much.
import type { ServerResponse } from "node:http";

/** Answers the hostile paths (/silent, /drip, /endless, /big); false for any other path. */
export function serveHostile(path: string, res: ServerResponse): boolean {
  switch (path) {
    case "/silent":
      return true; // the headers never come
    case "/drip": {
      res.writeHead(200, { "Content-Type": "text/html" });
      const timer = setInterval(() => res.write("."), 20);
      res.on("close", () => clearInterval(timer));
      return true;
    }
    case "/endless": {
      // No Content-Length; writes as fast as the client reads, until the client goes away.
      res.writeHead(200, { "Content-Type": "text/html" });
      const chunk = "y".repeat(16 * 1024);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
      return true;
    }
    case "/big":
      res.writeHead(200, { "Content-Type": "text/html" });
      res.end("x".repeat(600 * 1024));
      return true;
    default:
      return false;
  }
}

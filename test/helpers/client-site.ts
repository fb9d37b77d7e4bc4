// A client application's website, served locally: the only thing these tests stand in for.
// It records every request to its callback.
import { createServer, type Server } from "node:http";

export interface ClientSite {
  origin: string;
  callbacks: URL[];
  close(): Promise<void>;
}

export async function startClientSite(): Promise<ClientSite> {
  const callbacks: URL[] = [];
  let origin = "";
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    if (url.pathname === "/callback") {
      callbacks.push(url);
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Client callback</title><h1>Back at the client</h1>");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Client</title><h1>A client</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  origin = `http://127.0.0.1:${address.port}`;
  return {
    origin,
    callbacks,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

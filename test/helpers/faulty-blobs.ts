// A network fault in front of the run's real local Blobs server: a small proxy that passes
// requests through, or drops connections ("down"), or never answers ("hang"), or never answers
// writes only ("hang-writes"). Stores pointed at it see exactly what an outage looks like.
// With `workers`, it serves that many requests at a time, like a server whose workers are all
// busy: the rest wait their turn, and a request that hangs keeps its worker until its client
// gives up on it (closes the connection).
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { BlobsConnection } from "../../netlify/lib/platform/store.ts";

export type FaultMode = "pass" | "down" | "hang" | "hang-writes";

export interface FaultyBlobs {
  connection: BlobsConnection;
  mode: FaultMode;
  close(): Promise<void>;
}

interface BlobsContext {
  siteID: string;
  token: string;
  edgeURL: string;
}

export async function startFaultyBlobs(options: { workers?: number } = {}): Promise<FaultyBlobs> {
  const context = JSON.parse(Buffer.from(process.env.NETLIFY_BLOBS_CONTEXT ?? "", "base64").toString()) as BlobsContext;
  const upstream = new URL(context.edgeURL);
  const sockets = new Set<Socket>();

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const proxied = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    proxied.on("error", () => res.destroy());
    req.pipe(proxied);
  };

  const faulty: FaultyBlobs = {
    connection: { siteID: context.siteID, token: context.token, edgeURL: "", uncachedEdgeURL: "" },
    mode: "pass",
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const write = req.method !== "GET" && req.method !== "HEAD";
    if (faulty.mode === "down") return void req.socket.destroy();
    if (faulty.mode === "hang" || (faulty.mode === "hang-writes" && write)) return; // never answers
    forward(req, res);
  };

  const workers = options.workers ?? Number.POSITIVE_INFINITY;
  let busy = 0;
  const waiting: (() => void)[] = [];
  const next = () => {
    while (busy < workers && waiting.length > 0) waiting.shift()!();
  };
  const server = createServer((req, res) => {
    let started = false;
    let gone = false;
    // A request keeps its worker until its answer is sent or its client goes away; one whose
    // client went away while it waited never takes one.
    res.on("close", () => {
      gone = true;
      if (!started) return;
      busy--;
      next();
    });
    waiting.push(() => {
      if (gone) return;
      started = true;
      busy++;
      serve(req, res);
    });
    next();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  faulty.connection.edgeURL = faulty.connection.uncachedEdgeURL = `http://127.0.0.1:${address.port}`;
  return faulty;
}

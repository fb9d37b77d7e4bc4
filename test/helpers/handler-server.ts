// A fetch-style handler ((Request) => Response) served over real local HTTP: an IndieAuth
// server's endpoint, in-process with a test runtime's clock and store, for a resource server
// on "another site" to call. It counts the requests it answered. No vitest here.
import { createServer, type IncomingMessage } from "node:http";

export interface HandlerServer {
  origin: string;
  /** Requests answered so far. */
  requests: number;
  close(): Promise<void>;
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
  return new Request(new URL(req.url ?? "/", origin), { method: req.method, headers, body });
}

export async function serveHandler(handle: (req: Request) => Promise<Response>): Promise<HandlerServer> {
  let origin = "";
  const state: HandlerServer = {
    origin: "",
    requests: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    void (async () => {
      state.requests++;
      const response = await handle(await toRequest(req, origin));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");
  origin = `http://127.0.0.1:${address.port}`;
  state.origin = origin;
  return state;
}

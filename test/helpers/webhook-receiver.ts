// The owner's webhook (ntfy, Slack, Discord...), served locally: an http server on loopback
// that records every message it is sent, at a secret path as a real webhook URL has. It can
// hold requests unanswered, as a slow receiver does. No vitest here.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";

export interface ReceivedMessage {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hook/<secret>: what NOTIFY_URL is set to. */
  url: string;
  /** The secret part of the URL, which no message may repeat. */
  secret: string;
  messages: ReceivedMessage[];
  /** Resolves once `count` messages have arrived (in full). */
  received(count: number): Promise<ReceivedMessage[]>;
  /** From now on, requests are read but not answered until release(). */
  hold(): void;
  /** Answers the held requests (200) and stops holding. */
  release(): void;
  /** Requests held now whose connection is still open. */
  openHeld(): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const secret = randomBytes(12).toString("hex");
  const messages: ReceivedMessage[] = [];
  const waiters: Array<{ count: number; resolve: (messages: ReceivedMessage[]) => void }> = [];
  const held = new Set<ServerResponse>();
  let holding = false;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      messages.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      for (const waiter of waiters.filter((w) => messages.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(messages.slice());
      }
      if (holding) {
        held.add(res);
        res.on("close", () => held.delete(res));
        return;
      }
      res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no address");

  return {
    url: `http://127.0.0.1:${address.port}/hook/${secret}`,
    secret,
    messages,
    received: (count) =>
      messages.length >= count
        ? Promise.resolve(messages.slice())
        : new Promise((resolve) => waiters.push({ count, resolve })),
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const res of held) res.writeHead(200).end("ok");
    },
    openHeld: () => held.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

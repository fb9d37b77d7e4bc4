// Whether a local server can be reached from another machine: an address of this machine's that
// is not loopback (its network card's), and whether anything answers a connection there. Only
// this machine's own addresses are asked; nothing is bound or routed.
import { connect } from "node:net";
import { networkInterfaces } from "node:os";

/** An IPv4 address of this machine's other than loopback, if it has one. */
export function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && !address.internal && address.family === "IPv4")?.address;
}

/** "refused" when nothing listens on `address`:`port`, "answered" when something does. */
export function connectTo(address: string, port: number): Promise<"refused" | "answered"> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, timeout: 5000 });
    socket.once("connect", () => {
      socket.destroy();
      resolve("answered");
    });
    socket.once("timeout", () => {
      socket.destroy();
      reject(new Error(`no answer from ${address}:${port} within 5 s`));
    });
    socket.once("error", (error: NodeJS.ErrnoException) =>
      error.code === "ECONNREFUSED" ? resolve("refused") : reject(error),
    );
  });
}

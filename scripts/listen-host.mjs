// Preloaded into netlify-cli by the local commands (`node --import <this file> …/run.js`), so that
// its servers listen on this machine only. netlify-cli 26 has no option for the address: its
// proxy (the port you open), its functions server and the local Blobs server call
// `server.listen(port)`, which listens on every network interface, so anyone on the same network
// (a café's Wi-Fi) could use the local trial, its sign-in and its files. Every listen that names
// no address, or the "any address" one, gets NETLIFY_INDIEAUTH_LISTEN_HOST (127.0.0.1 unless the
// person asked for another with --host); a listen on a named address (netlify-cli's static
// server and function workers ask for "localhost") or on a socket file is left as it is.
import net from "node:net";

const host = process.env.NETLIFY_INDIEAUTH_LISTEN_HOST || "127.0.0.1";
const ANY = new Set(["", "::", "0.0.0.0"]);

if (!ANY.has(host)) {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the server as `this`.
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function listenOnHost(...args) {
    const [first, second] = args;
    if (first !== null && typeof first === "object" && Object.getPrototypeOf(first) === Object.prototype) {
      // listen(options[, callback]): a port, with no address, socket file or handle.
      const isPort = first.path === undefined && first.fd === undefined && first.handle === undefined;
      if (isPort && (first.host === undefined || ANY.has(String(first.host)))) args[0] = { ...first, host };
    } else if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
      // listen(port[, host][, backlog][, callback])
      if (typeof second === "string") {
        if (ANY.has(second)) args[1] = host;
      } else args.splice(1, 0, host);
    } else if (first === undefined || typeof first === "function") {
      // listen([callback]): any free port.
      args.splice(0, first === undefined ? 1 : 0, 0, host);
    }
    return listen.apply(this, args);
  };
}

// Preloaded (NODE_OPTIONS=--import) into the `netlify dev` a test starts, and into every worker
// thread that runs a function there: it stands in for the two things outside this machine that
// a client's public website needs, the DNS and the route to its address. Nothing here is part
// of the server: no deployed code reads these variables or can load this file.
//
//   TEST_DNS_ANSWERS     {"client.test": "93.184.215.14"}  what dns.lookup answers for a name
//   TEST_NETWORK_ROUTES  {"93.184.215.14": "127.0.0.1"}    where a connection to an address goes
//   TEST_NETWORK_PORTS   {"93.184.215.14:443": 40123}      the port a routed connection to that
//                        address and port reaches instead (so https://claude.ai/, port 443, can
//                        be the test's own server on an ephemeral port)
//
// The server's SSRF guard runs unchanged and judges the answered address (a public one passes,
// 127.0.0.1 is refused); only after the guard has passed it does a connection to a routed
// address reach the test's own server on loopback, as the network would deliver it to a public
// host. TLS is real: the name is verified against a certificate the test makes and trusts
// through NODE_EXTRA_CA_CERTS. No packet ever goes to a routed public address: the DNS answer
// that needs a route is given only to a connection whose routing is in place.
import dns from "node:dns";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const answers = JSON.parse(process.env.TEST_DNS_ANSWERS || "{}");
const routes = JSON.parse(process.env.TEST_NETWORK_ROUTES || "{}");
const ports = JSON.parse(process.env.TEST_NETWORK_PORTS || "{}");
const realLookup = dns.lookup;
const ROUTED = Symbol("routed");
/** Set while a connection's routed lookup runs: an answer that needs a route is given only
 * then, so a connection that somehow bypassed the routing fails instead of going out. */
let routing = 0;

function answerFor(hostname) {
  const name = String(hostname).toLowerCase();
  return Object.hasOwn(answers, name) ? answers[name] : undefined;
}

function stubLookup(hostname, options, callback) {
  if (typeof options === "function") [callback, options] = [options, {}];
  if (typeof options === "number") options = { family: options };
  const address = answerFor(hostname);
  if (address === undefined) return realLookup(hostname, options, callback);
  if (Object.hasOwn(routes, address) && routing === 0) {
    const error = Object.assign(
      new Error(`getaddrinfo ENOTFOUND ${hostname} (test network: not through a routed connection)`),
      { code: "ENOTFOUND" },
    );
    process.nextTick(() => callback(error));
    return undefined;
  }
  const family = net.isIP(address);
  process.nextTick(() => (options?.all ? callback(null, [{ address, family }]) : callback(null, address, family)));
  return undefined;
}

function routedAddress(address) {
  return Object.hasOwn(routes, address) ? routes[address] : address;
}

/** The port a connection to `host` (a name with an answer, or an address) on `port` reaches. */
function routedPort(host, port) {
  const address = net.isIP(String(host)) ? String(host) : answerFor(host);
  const key = `${address}:${port}`;
  return address !== undefined && Object.hasOwn(routes, address) && Object.hasOwn(ports, key)
    ? Number(ports[key])
    : port;
}

/** A connection's lookup whose answers are routed: whatever check `lookup` makes is made on the
 * address it answered, and the socket then connects to where that address is routed. */
function routedLookup(lookup) {
  return (hostname, options, callback) => {
    routing++;
    try {
      return lookup(hostname, options, answered);
    } finally {
      routing--;
    }
    function answered(error, address, family) {
      if (error) return callback(error, address, family);
      if (Array.isArray(address)) {
        return callback(
          null,
          address.map((entry) => ({
            address: routedAddress(entry.address),
            family: net.isIP(routedAddress(entry.address)),
          })),
        );
      }
      const routed = routedAddress(address);
      return callback(null, routed, routed === address ? family : net.isIP(routed));
    }
  };
}

if (Object.keys(answers).length > 0 || Object.keys(routes).length > 0) {
  dns.lookup = stubLookup;
  syncBuiltinESMExports();

  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the socket as `this`.
  const realConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function connect(...args) {
    // net.connect() hands over its normalised [options, callback] array; others pass options.
    const options = Array.isArray(args[0]) ? args[0][0] : args[0];
    if (options !== null && typeof options === "object" && options.path == null && !options[ROUTED]) {
      options[ROUTED] = true;
      if (typeof options.host === "string") {
        if (options.port !== undefined) options.port = routedPort(options.host, Number(options.port));
        options.host = routedAddress(options.host);
      }
      options.lookup = routedLookup(options.lookup ?? dns.lookup);
    }
    return realConnect.apply(this, args);
  };
}
